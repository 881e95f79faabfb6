public import Foundation
public import PackFormat
import VPSImageIO

/// Pictures of a pack's map: a top-down PNG preview and a PLY point cloud.
public enum MapPictures {
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
    public static func preview(_ map: MapData, size: Int = 1024) throws -> Data {
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
        for p in map.points {
            let (u, v) = pixel(Double(p.x), Double(p.z))
            canvas.blend(u, v, palette[Int(max(0, p.floor)) % palette.count], alpha: 0.5)
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
        // Scale bar: the largest of 1, 2, 5, 10, ... metres under a quarter of the width.
        var metres = 1.0
        for m in [1.0, 2, 5, 10, 20, 50, 100, 200, 500] where m * scale <= Double(canvas.width) / 4 { metres = m }
        let bar = Int(metres * scale), y = canvas.height - 20
        canvas.rect(20, y, 20 + bar, y + 4, SIMD3(0, 0, 0))
        canvas.rect(20, y - 6, 22, y + 10, SIMD3(0, 0, 0))
        canvas.rect(18 + bar, y - 6, 20 + bar, y + 10, SIMD3(0, 0, 0))
        // One tick per metre of the bar, for reading the scale without text.
        for m in 1..<Int(metres) where metres <= 10 {
            let u = 20 + Int(Double(m) * scale)
            canvas.rect(u, y - 3, u + 1, y, SIMD3(0, 0, 0))
        }
        do {
            return Data(try ImageEncoder.png(RGBImage(width: canvas.width, height: canvas.height, pixels: canvas.pixels)))
        } catch {
            throw BuildError.io("cannot encode the preview: \(error.reason)")
        }
    }
}

/// A small RGB raster with a white background.
struct Canvas {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 255, count: width * height * 3)
    }

    mutating func blend(_ x: Int, _ y: Int, _ c: SIMD3<UInt8>, alpha: Double) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        for ch in 0..<3 {
            pixels[i + ch] = UInt8((Double(pixels[i + ch]) * (1 - alpha) + Double(c[ch]) * alpha).rounded())
        }
    }

    mutating func rect(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: SIMD3<UInt8>) {
        for y in max(0, y0)..<max(max(0, y0), min(height, y1)) {
            for x in max(0, x0)..<max(max(0, x0), min(width, x1)) { blend(x, y, c, alpha: 1) }
        }
    }

    mutating func disc(_ cx: Int, _ cy: Int, radius r: Int, _ c: SIMD3<UInt8>) {
        for y in (cy - r)...(cy + r) {
            for x in (cx - r)...(cx + r) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r { blend(x, y, c, alpha: 1) }
        }
    }

    mutating func line(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: SIMD3<UInt8>) {
        let n = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in 0...n {
            blend(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n, c, alpha: 1)
        }
    }
}
