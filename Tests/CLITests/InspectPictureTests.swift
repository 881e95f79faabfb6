import Foundation
import Testing
import VPSImageIO

/// `vpspack inspect --preview` and `--ply` on a small synthetic room pack.
@Suite("inspect --preview and --ply")
struct InspectPictureTests {
    /// The PLY header lines and the binary body after `end_header`.
    static func splitPLY(_ data: Data) throws -> (header: [String], body: Data) {
        guard let end = data.range(of: Data("end_header\n".utf8)) else { throw CLIError("the PLY file has no end_header line") }
        let header = String(decoding: data[..<end.upperBound], as: UTF8.self).split(separator: "\n").map(String.init)
        return (header, data[end.upperBound...])
    }

    /// x, y, z of every vertex of a binary little-endian PLY with float x y z followed by `extra` bytes.
    static func vertices(_ body: Data, count: Int, stride: Int) -> [SIMD3<Float>] {
        let bytes = [UInt8](body)
        func float(_ at: Int) -> Float {
            Float(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
        }
        return (0..<count).map { i in SIMD3(float(i * stride), float(i * stride + 4), float(i * stride + 8)) }
    }

    @Test("the preview is a PNG of the stated size, dark where map points project and white elsewhere; the PLY holds every point with colours")
    func previewAndPLY() async throws {
        let fixture = try await InspectPackFixture.shared()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-inspect-pictures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let r = try StoreCLI.run(["inspect", fixture.pack.path, "--preview", "top.png", "--ply", "points.ply", "--json"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let pictures = try #require(try r.json()["pictures"] as? [String: Any])
        let preview = try #require(pictures["preview"] as? [String: Any])
        let width = try #require(preview["width"] as? Int), height = try #require(preview["height"] as? Int)
        let perMetre = try #require(preview["pixelsPerMetre"] as? Double)
        let originX = try #require(preview["originX"] as? Double), originZ = try #require(preview["originZ"] as? Double)

        let png = try Data(contentsOf: dir.appendingPathComponent("top.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let decoded = try ImageDecoder.decode(path: dir.appendingPathComponent("top.png").path)
        #expect(decoded.format == .png)
        let image = decoded.image
        #expect(image.width == width && image.height == height)
        // The longer side of the map spans 1024 pixels with its margins; 30 more rows hold the scale bar.
        #expect([1023, 1024].contains(max(width, height - 30)), "\(width)×\(height)")

        let ply = try Self.splitPLY(try Data(contentsOf: dir.appendingPathComponent("points.ply")))
        #expect(ply.header.first == "ply")
        #expect(ply.header.contains("format binary_little_endian 1.0"))
        #expect(ply.header.contains("element vertex \(fixture.points)"))
        let properties = ply.header.filter { $0.hasPrefix("property ") }
        #expect(properties == ["property float x", "property float y", "property float z",
                               "property uchar red", "property uchar green", "property uchar blue"])
        #expect(ply.body.count == fixture.points * 15)
        let points = Self.vertices(ply.body, count: fixture.points, stride: 15)
        #expect(points.count == fixture.points)

        // Every point lands on a drawn (non-white) pixel where the stated mapping puts it.
        var blank = 0
        var covered = Set<Int>()
        for p in points {
            let u = Int((Double(p.x) - originX) * perMetre), v = Int((Double(p.z) - originZ) * perMetre)
            guard u >= 0, v >= 0, u < width, v < height - 30 else {
                Issue.record("point \(p) projects outside the picture at (\(u), \(v))")
                continue
            }
            covered.insert(v * width + u)
            if image[u, v] >= 250 { blank += 1 }
        }
        #expect(blank == 0, "\(blank) of \(points.count) points project onto white pixels")
        // Most of the picture stays background: points, not a filled area.
        let drawn = image.pixels.filter { $0 < 250 }.count
        #expect(drawn >= covered.count && drawn < width * height / 4, "\(drawn) drawn pixels")
        // The scale bar: a dark bar 20 pixels above the bottom, from x = 20, with its length written.
        let bar = (20..<60).filter { image[$0, height - 18] < 100 }.count
        #expect(bar == 40, "scale bar row has \(bar) dark pixels of 40")
        let scaleMetres = try #require(preview["scaleBarMetres"] as? Double)
        let barEnd = 20 + Int(scaleMetres * perMetre)
        let label = (barEnd + 8..<min(width, barEnd + 60)).flatMap { x in (height - 24..<height - 14).map { image[x, $0] } }.filter { $0 < 100 }.count
        #expect(label > 10, "the scale bar's length is not written beside it")
    }

    @Test("--preview on a pack without a map fails naming the missing file")
    func noMap() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-inspect-nomap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("src/map"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("src/attachments"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("not a map".utf8).write(to: dir.appendingPathComponent("src/map/notes.txt"))
        let pack = try StoreCLI.run(["pack", "src", "-o", "empty.vpspack", "--tour", "empty", "--version", "1"], in: dir)
        #expect(pack.status == 0, "\(pack.stderr)")
        let r = try StoreCLI.run(["inspect", "empty.vpspack", "--preview", "top.png"], in: dir)
        #expect(r.status == 65, "\(r.status): \(r.stderr)")
        #expect(r.stderr.contains("map/points.bin"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("top.png").path))
    }
}
