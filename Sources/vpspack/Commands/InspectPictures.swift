import Foundation
import PackBuilder
import PackFormat

/// `vpspack inspect --preview FILE.png --ply FILE.ply`: pictures of a pack's map.
enum InspectPictures {
    /// Writes the requested files; returns what `--json` adds under "pictures" (empty when none was asked for).
    @discardableResult
    static func write(_ pack: some PackContents, preview: String?, ply: String?, output: Output) throws -> [String: Any] {
        guard preview != nil || ply != nil else { return [:] }
        let (map, colours) = try MapPictures.load(pack)
        var written: [String: Any] = [:]
        if let preview {
            let picture = try MapPictures.preview(map)
            try writeFile(picture.png, to: preview)
            output.err("wrote \(preview): top-down view of \(map.points.count) points and \(map.keyframes.count) keyframes, "
                       + "\(picture.width)×\(picture.height) pixels, scale bar \(picture.scaleBarMetres) m")
            written["preview"] = ["file": preview, "width": picture.width, "height": picture.height, "pixelsPerMetre": picture.pixelsPerMetre,
                                  "originX": picture.originX, "originZ": picture.originZ, "scaleBarMetres": picture.scaleBarMetres]
        }
        if let ply {
            try writeFile(MapPictures.ply(map, colours: colours), to: ply)
            output.err("wrote \(ply): \(map.points.count) points" + (colours == nil ? "" : " with colours"))
            written["ply"] = ["file": ply, "points": map.points.count, "colours": colours != nil]
        }
        return written
    }

    private static func writeFile(_ data: Data, to path: String) throws {
        do {
            try DurableFile.write(data, to: URL(fileURLWithPath: path))
        } catch {
            throw BuildError(.io, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
