import Foundation
import Localizer
import PackBuilder
import PackFormat
import VPSCrypto
import VPSImageIO

/// Makes the seed corpora committed under Tests/FuzzCorpus/<target>/: small valid inputs
/// made by vpspack's own writers, so the fuzzer starts past the first checks.
enum SeedWriter {
    static func write(into root: URL) throws {
        let fm = FileManager.default
        func save(_ target: FuzzTarget, _ name: String, _ bytes: some Sequence<UInt8>) throws {
            let dir = root.appendingPathComponent(target.rawValue)
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(bytes).write(to: dir.appendingPathComponent(name))
        }
        let created = Date(timeIntervalSince1970: 1_780_000_000)

        // Offers: signed by the trusted key, unsigned, and signed by another key.
        let offer = Offer(tour: "demo", version: 3, created: created, expires: created.addingTimeInterval(86_400 * 30), format: 1,
                          archive: .init(path: "demo-3.vpspack", length: 123_456, sha256: String(repeating: "ab", count: 32)))
        try save(.offer, "signed.json", OfferEnvelope(offer: offer, signedBy: [FuzzTarget.trustedKey]).encoded())
        try save(.offer, "unsigned.json", OfferEnvelope(offer: offer, signedBy: []).encoded())
        let other = try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 42, count: 32))
        try save(.offer, "other-key.json", OfferEnvelope(offer: offer, signedBy: [other, FuzzTarget.trustedKey]).encoded())

        // Manifests: plain and georeferenced.
        let files = [
            Manifest.File(path: "map/points.bin", length: 1600, sha256: String(repeating: "0f", count: 32)),
            Manifest.File(path: "attachments/tags.json", length: 12, sha256: String(repeating: "a1", count: 32)),
        ]
        try save(.manifest, "plain.json", Manifest(tour: "demo", version: 1, created: created, georeference: nil, files: files).encoded())
        let geo = Manifest.Georeference(latitude: 48.85, longitude: 2.35, altitude: 35, heading: 12.5)
        try save(.manifest, "georeferenced.json", Manifest(tour: "demo", version: 2, created: created, georeference: geo, files: files).encoded())

        // Map files, then archives holding them.
        let map = try sampleMap()
        let encoded = try map.encoded()
        var mapSeed: [UInt8] = []
        let ordered = [MapLayout.pointsPath, MapLayout.descriptorsPath, MapLayout.indexPath].map { encoded[$0] ?? Data() }
        for part in ordered {
            let n = UInt32(part.count)
            mapSeed += [UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24)]
        }
        for part in ordered { mapSeed += part }
        mapSeed += encoded[MapLayout.keyframesPath] ?? Data()
        try save(.map, "small.bin", mapSeed)

        let folder = fm.temporaryDirectory.appendingPathComponent("vpsfuzz-seeds-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? fm.removeItem(at: folder) }
        try fm.createDirectory(at: folder.appendingPathComponent("map"), withIntermediateDirectories: true)
        try fm.createDirectory(at: folder.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        for (path, data) in encoded { try data.write(to: folder.appendingPathComponent(path)) }
        try Data("{\"tags\":[1]}".utf8).write(to: folder.appendingPathComponent("attachments/tags.json"))
        let archive = folder.appendingPathComponent("seed.vpspack")
        try PackArchiveWriter.write(folder: folder, to: archive, tour: "demo", version: 1, created: created)
        try save(.archive, "map-and-tags.vpspack", Data(contentsOf: archive))
        try fm.removeItem(at: archive)
        for path in encoded.keys { try fm.removeItem(at: folder.appendingPathComponent(path)) }
        try PackArchiveWriter.write(folder: folder, to: archive, tour: "tags", version: 7, created: created, georeference: geo)
        try save(.archive, "tags-only.vpspack", Data(contentsOf: archive))

        // Images: gray and colour, small, with some texture.
        let gray = GrayImage(width: 24, height: 16, pixels: (0..<(24 * 16)).map { UInt8(truncatingIfNeeded: $0 &* 37 ^ $0 >> 3) })
        let colour = RGBImage(width: 16, height: 12, pixels: (0..<(16 * 12 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        try save(.jpeg, "gray.jpg", ImageEncoder.jpeg(gray, quality: 80))
        try save(.jpeg, "colour.jpg", ImageEncoder.jpeg(colour, quality: 60))
        try save(.png, "gray.png", ImageEncoder.png(gray))
        try save(.png, "colour.png", ImageEncoder.png(colour))
        try save(.pgm, "binary.pgm", ImageEncoder.pgm(gray))
        try save(.pgm, "comment.pgm", Array("P5\n# a comment\n4 2\n255\n".utf8) + [0, 50, 100, 150, 200, 250, 10, 20])

        // Command lines, NUL-separated.
        func line(_ words: String...) -> [UInt8] { Array(words.joined(separator: "\0").utf8) }
        try save(.cli, "download", line("--server", "site", "--tour", "demo", "--attach", "a.json", "--attach=b.json", "--allow-unsigned", "--json"))
        try save(.cli, "positional", line("pack.vpspack", "--store=/tmp/s", "--radius", "12.5", "-"))
        try save(.cli, "bad", line("--tour", "--version", "0", "--unknown", "--help"))
        try writeCaptureSeeds { try save($0, $1, $2) }
    }

    /// Seeds of the capture readers and the intrinsics parser.
    static func writeCaptureSeeds(_ save: (FuzzTarget, String, [UInt8]) throws -> Void) throws {
        func prefixed(_ parts: [Data]) -> [UInt8] {
            var out: [UInt8] = []
            for part in parts.dropLast() {
                let n = UInt32(part.count)
                out += [UInt8(n & 0xff), UInt8(n >> 8 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 24)]
            }
            for part in parts { out += part }
            return out
        }
        let cameras = [
            1: COLMAPModel.Camera(id: 1, model: .pinhole, width: 640, height: 480, params: [500, 505, 320, 240]),
            2: COLMAPModel.Camera(id: 2, model: .opencv, width: 800, height: 600, params: [600, 600, 400, 300, 0.1, -0.05, 0.001, 0]),
        ]
        let images = [
            1: COLMAPModel.Image(id: 1, qvec: SIMD4(1, 0, 0, 0), tvec: SIMD3(0, 0, 0), cameraID: 1, name: "a.jpg",
                                 observations: [.init(x: 10.5, y: 20.25, point3D: 1), .init(x: 30, y: 40, point3D: -1)]),
            2: COLMAPModel.Image(id: 2, qvec: SIMD4(0.9238795, 0, 0.3826834, 0), tvec: SIMD3(0.5, 0, 0.1), cameraID: 2, name: "b.jpg",
                                 observations: [.init(x: 100, y: 200, point3D: 1)]),
        ]
        let points: [Int64: COLMAPModel.Point3D] = [
            1: .init(id: 1, position: SIMD3(0.1, 0.2, 3), color: SIMD3(200, 100, 50), error: 0.4,
                     track: [.init(imageID: 1, point2DIndex: 0), .init(imageID: 2, point2DIndex: 0)]),
        ]
        let model = COLMAPModel(cameras: cameras, images: images, points: points)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpsfuzz-colmap-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try model.writeText(directory: dir)
        try model.writeBinary(directory: dir)
        func files(_ names: [String]) throws -> [Data] { try names.map { try Data(contentsOf: dir.appendingPathComponent($0)) } }
        try save(.colmapText, "two-cameras.bin", prefixed(try files(["cameras.txt", "images.txt", "points3D.txt"])))
        try save(.colmapBinary, "two-cameras.bin", prefixed(try files(["cameras.bin", "images.bin", "points3D.bin"])))

        try save(.transforms, "shared-intrinsics.json", Array("""
            {"camera_model": "OPENCV", "fl_x": 500, "fl_y": 500, "cx": 320, "cy": 240, "w": 640, "h": 480,
             "k1": 0.01, "k2": 0, "p1": 0, "p2": 0, "integer_depth_scale": 0.001,
             "frames": [
              {"file_path": "images/0.png", "depth_file_path": "depth/0.png",
               "transform_matrix": [[1, 0, 0, 0], [0, 1, 0, 1.5], [0, 0, 1, 0], [0, 0, 0, 1]]},
              {"file_path": "images/1.png",
               "transform_matrix": [[0, 0, 1, 2], [0, 1, 0, 1.5], [-1, 0, 0, 0], [0, 0, 0, 1]]}
             ]}
            """.utf8))
        try save(.transforms, "per-frame-intrinsics.json", Array("""
            {"frames": [{"file_path": "a.jpg", "fl_x": 800, "fl_y": 810, "cx": 480, "cy": 270, "w": 960, "h": 540,
              "transform_matrix": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]}]}
            """.utf8))

        try save(.intrinsics, "four", Array("525,525,319.5,239.5\0{\"fx\": 525, \"fy\": 525, \"cx\": 319.5, \"cy\": 239.5, \"width\": 640, \"height\": 480}".utf8))
        try save(.intrinsics, "eight", Array("600, 610, 322, 241, -0.28, 0.09, 0.001, -0.0007\0{\"fx\": 600, \"fy\": 610, \"cx\": 322, \"cy\": 241, \"width\": 640, \"height\": 480, \"k1\": -0.28, \"k2\": 0.09, \"p1\": 0.001, \"p2\": -0.0007}".utf8))
    }

    static func sampleMap() throws -> MapData {
        var points: [MapPoint] = []
        var descriptors: [SIMD4<UInt64>] = []
        var owners: [UInt32] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        for i in 0..<12 {
            points.append(MapPoint(x: Float(i) * 0.5, y: 1.5, z: -Float(i), floor: Int16(i % 2), observations: UInt16(2 + i)))
            for _ in 0...(i % 3) {
                descriptors.append(SIMD4(next(), next(), next(), next()))
                owners.append(UInt32(i))
            }
        }
        let keyframes = [MapKeyframe(id: 0, name: "f0.jpg", position: [0, 1.5, 0], rotation: [0, 0, 0, 1], fx: 500, fy: 500,
                                     cx: 320, cy: 240, width: 640, height: 480)]
        return try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: keyframes,
                           index: MapIndexTables.build(descriptors: descriptors, keyBits: 8, tableCount: 8))
    }
}
