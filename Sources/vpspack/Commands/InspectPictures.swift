import Foundation
import PackBuilder
import PackFormat

/// `vpspack inspect --preview FILE.png --ply FILE.ply`: pictures of a pack's map.
enum InspectPictures {
    static func write(_ pack: some PackContents, preview: String?, ply: String?, output: Output) throws {
        guard preview != nil || ply != nil else { return }
        let (map, colours) = try MapPictures.load(pack)
        if let preview {
            try writeFile(try MapPictures.preview(map), to: preview)
            output.err("wrote \(preview): top-down view of \(map.points.count) points and \(map.keyframes.count) keyframes")
        }
        if let ply {
            try writeFile(MapPictures.ply(map, colours: colours), to: ply)
            output.err("wrote \(ply): \(map.points.count) points" + (colours == nil ? "" : " with colours"))
        }
    }

    private static func writeFile(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw BuildError(.io, "cannot write \(path): \(error.localizedDescription)")
        }
    }
}
