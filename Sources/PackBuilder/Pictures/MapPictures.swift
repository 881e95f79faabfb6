public import Foundation
public import PackFormat
import VPSImageIO

/// Pictures of a pack's map: a top-down PNG preview and a PLY point cloud.
public enum MapPictures {
    /// A drawn preview and how map coordinates land on it:
    /// pixel column = (x − originX) · pixelsPerMetre, row = (z − originZ) · pixelsPerMetre.
    public struct Preview: Sendable {
        public var png: Data
        public var width: Int
        public var height: Int
        public var pixelsPerMetre: Double
        /// The map x and z at the picture's top-left corner.
        public var originX: Double
        public var originZ: Double
        /// The length the scale bar stands for.
        public var scaleBarMetres: Double
    }

    /// Reads the map of a pack (points, descriptors, index, keyframes) and its optional colours.
    public static func load(_ pack: some PackContents) throws -> (MapData, [SIMD3<UInt8>]?) {
        var files: [String: Data] = [:]
        for path in [MapLayout.pointsPath, MapLayout.descriptorsPath, MapLayout.indexPath, MapLayout.keyframesPath] {
            guard pack.contains(path) else { throw BuildError.badData("the pack has no \(path)") }
            files[path] = try pack.data(at: path)
        }
        let map = try MapData.decode(files: files)
        var colours: [SIMD3<UInt8>]?
        if pack.contains(PointColours.path) { colours = PointColours.decode(try pack.data(at: PointColours.path), count: map.points.count) }
        return (map, colours)
    }

    /// A PLY file (binary little-endian) of the points, with their colours when known.
    public static func ply(_ map: MapData, colours: [SIMD3<UInt8>]?) -> Data {
        var header = "ply\nformat binary_little_endian 1.0\ncomment vpspack map points, metres, Y up\n"
        header += "element vertex \(map.points.count)\nproperty float x\nproperty float y\nproperty float z\n"
        if colours != nil { header += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
        header += "end_header\n"
        var w = BinaryWriter()
        w.data.append(contentsOf: Array(header.utf8))
        for (i, p) in map.points.enumerated() {
            w.u32(p.x.bitPattern)
            w.u32(p.y.bitPattern)
            w.u32(p.z.bitPattern)
            if let c = colours?[i] { w.data.append(contentsOf: [c.x, c.y, c.z]) }
        }
        return w.data
    }

    /// A top-down PNG: points seen from above (x right, −Z up the page), coloured
    /// by floor, keyframes as dots with heading ticks, and a scale bar.
    ///
    /// The map's longer horizontal side spans `size` pixels inside a 40-pixel
    /// margin; a 30-pixel band at the bottom holds the scale bar.
    public static func preview(_ map: MapData, size: Int = 1024) throws -> Preview {
        let xs = map.points.map { Double($0.x) } + map.keyframes.map { $0.position[0] }
        let zs = map.points.map { Double($0.z) } + map.keyframes.map { $0.position[2] }
        guard let x0 = xs.min(), let x1 = xs.max(), let z0 = zs.min(), let z1 = zs.max() else {
            throw BuildError.badData("the map has no points to draw")
        }
        let margin = 40.0
        let span = max(x1 - x0, z1 - z0, 0.5)
        let scale = (Double(size) - 2 * margin) / span
        let width = Int((x1 - x0) * scale + 2 * margin), height = Int((z1 - z0) * scale + 2 * margin) + 30
        var canvas = Canvas(width: max(width, 200), height: max(height, 120))
        func pixel(_ x: Double, _ z: Double) -> (Int, Int) { (Int(margin + (x - x0) * scale), Int(margin + (z - z0) * scale)) }
        let palette: [SIMD3<UInt8>] = [SIMD3(31, 119, 180), SIMD3(255, 127, 14), SIMD3(44, 160, 44), SIMD3(214, 39, 40), SIMD3(148, 103, 189), SIMD3(140, 86, 75)]
        let floors = Set(map.points.map(\.floor))
        // One floor: colour by height instead, low blue through green to high red.
        let ys = map.points.map { Double($0.y) }
        let y0 = ys.min() ?? 0, ySpan = max((ys.max() ?? 0) - y0, 1e-6)
        for p in map.points {
            let (u, v) = pixel(Double(p.x), Double(p.z))
            let colour = floors.count > 1 ? palette[Int(max(0, p.floor)) % palette.count] : heightColour((Double(p.y) - y0) / ySpan)
            // A 3×3 splat, half transparent, so that dense areas darken.
            for dv in -1...1 {
                for du in -1...1 { canvas.blend(u + du, v + dv, colour, alpha: du == 0 && dv == 0 ? 0.8 : 0.35) }
            }
        }
        for k in map.keyframes {
            let (u, v) = pixel(k.position[0], k.position[2])
            canvas.disc(u, v, radius: 2, SIMD3(0, 0, 0))
            // Heading: the camera's −Z axis, from the [x, y, z, w] rotation.
            let q = k.rotation
            let fx = -(2 * (q[0] * q[2] + q[3] * q[1])), fz = -(1 - 2 * (q[0] * q[0] + q[1] * q[1]))
            let n = (fx * fx + fz * fz).squareRoot()
            if n > 1e-6 { canvas.line(u, v, u + Int(10 * fx / n), v + Int(10 * fz / n), SIMD3(0, 0, 0)) }
        }
        // Scale bar: the largest of 0.1, 0.2, 0.5, 1, 2, 5, ... metres within a quarter of the width, its length written beside it.
        var metres = 0.1
        for m in [0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] where m * scale <= Double(canvas.width) / 4 { metres = m }
        let bar = Int(metres * scale), y = canvas.height - 20
        canvas.rect(20, y, 20 + bar, y + 4, SIMD3(0, 0, 0))
        canvas.rect(20, y - 6, 22, y + 10, SIMD3(0, 0, 0))
        canvas.rect(18 + bar, y - 6, 20 + bar, y + 10, SIMD3(0, 0, 0))
        let label = (metres < 1 ? String(format: "%.1f", metres) : String(Int(metres))) + " m"
        canvas.text(label, x: 28 + bar, y: y - 5, scale: 3, SIMD3(0, 0, 0))
        do {
            let png = Data(try ImageEncoder.png(RGBImage(width: canvas.width, height: canvas.height, pixels: canvas.pixels)))
            return Preview(png: png, width: canvas.width, height: canvas.height, pixelsPerMetre: scale,
                           originX: x0 - margin / scale, originZ: z0 - margin / scale, scaleBarMetres: metres)
        } catch {
            throw BuildError.io("cannot encode the preview: \(error.reason)")
        }
    }
}

extension MapPictures {
    /// A colour ramp for heights in [0, 1]: blue, cyan, green, yellow, red.
    static func heightColour(_ t: Double) -> SIMD3<UInt8> {
        let stops: [SIMD3<Double>] = [SIMD3(40, 60, 200), SIMD3(0, 170, 200), SIMD3(40, 170, 60), SIMD3(230, 190, 0), SIMD3(210, 40, 30)]
        let x = min(max(t, 0), 1) * Double(stops.count - 1)
        let i = min(Int(x), stops.count - 2), f = x - Double(i)
        let c = stops[i] * (1 - f) + stops[i + 1] * f
        return SIMD3(UInt8(c.x.rounded()), UInt8(c.y.rounded()), UInt8(c.z.rounded()))
    }
}
