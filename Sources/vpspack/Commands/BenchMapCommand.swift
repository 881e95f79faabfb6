import Foundation
import Localizer
import PackFormat
import VPSImageIO

/// `vpspack bench-map FRAMES.json OUT.vpspack`: a pack from posed frames with
/// exact depth, for the end-to-end benchmark (internal; Scripts/pybench/bench_e2e.py).
///
/// FRAMES.json: `{"fx", "fy", "cx", "cy", "frames": [{"image": PATH, "depth": PATH,
/// "rotation": [9 numbers, world-to-camera, OpenCV axes, row-major], "translation": [3]}]}`.
/// Depth files are raw little-endian float32 z-depths in metres, one per pixel
/// (0 or non-finite: no depth). Every keypoint with depth becomes one map point
/// carrying its descriptor; no merging, so the point count is what the
/// benchmark asks for.
enum BenchMapCommand: Command {
    static let name = "bench-map"
    static let summary = "internal: build a pack from posed frames with depth"
    static let help = """
        usage: vpspack bench-map FRAMES.json OUT.vpspack [--features N]

        Internal benchmark helper (see Scripts/pybench/bench_e2e.py): extracts up to N
        features (default 1000) per frame, lifts each keypoint with the frame's depth
        into the pack frame, and writes a pack archive. Prints {"points": count} as JSON.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let count = try arguments.option("--features", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1000
        let paths = arguments.positionals()
        try arguments.finish()
        guard paths.count == 2 else { throw UsageError("give FRAMES.json and OUT.vpspack") }
        let base = URL(fileURLWithPath: paths[0]).deletingLastPathComponent()
        guard let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: paths[0]))) as? [String: Any],
              let fx = root["fx"] as? Double, let fy = root["fy"] as? Double, let cx = root["cx"] as? Double, let cy = root["cy"] as? Double,
              let frames = root["frames"] as? [[String: Any]] else {
            throw UsageError("\(paths[0]): expected fx, fy, cx, cy and frames")
        }
        let extractor = FeatureExtractor(.init(maxFeatures: count))
        var points: [MapPoint] = []
        var descriptors: [BinaryDescriptor] = []
        var owners: [UInt32] = []
        for (i, frame) in frames.enumerated() {
            guard let image = frame["image"] as? String, let depthPath = frame["depth"] as? String,
                  let r = frame["rotation"] as? [Double], r.count == 9, let t = frame["translation"] as? [Double], t.count == 3 else {
                throw UsageError("\(paths[0]): frame \(i) is malformed")
            }
            let decoded = try ImageDecoder.decode(path: base.appendingPathComponent(image).path)
            let w = decoded.image.width, h = decoded.image.height
            let depthData = try Data(contentsOf: base.appendingPathComponent(depthPath))
            guard depthData.count == w * h * 4 else { throw UsageError("\(depthPath): expected \(w * h) float32 depths") }
            let depth: [Float] = depthData.withUnsafeBytes { raw in
                (0..<(w * h)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
            let rotation = Matrix3(rows: Vector3(r[0], r[1], r[2]), Vector3(r[3], r[4], r[5]), Vector3(r[6], r[7], r[8]))
            let cameraToWorld = RigidTransform(rotation: rotation, translation: Vector3(t[0], t[1], t[2])).inverse
            let features = extractor.extract(decoded.image)
            for (k, d) in zip(features.keypoints, features.descriptors) {
                let u = Int(k.x.rounded()), v = Int(k.y.rounded())
                guard u >= 0, v >= 0, u < w, v < h else { continue }
                let z = Double(depth[v * w + u])
                guard z.isFinite, z > 0 else { continue }
                let p = cameraToWorld.apply(Vector3((Double(k.x) - cx) / fx * z, (Double(k.y) - cy) / fy * z, z))
                owners.append(UInt32(points.count))
                points.append(MapPoint(x: Float(p.x), y: Float(p.y), z: Float(p.z)))
                descriptors.append(d)
            }
        }
        let map = try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: [])
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-bench-map-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        try FileManager.default.createDirectory(at: staging.appendingPathComponent("map"), withIntermediateDirectories: true)
        for (path, data) in try map.encoded() { try data.write(to: staging.appendingPathComponent(path)) }
        try PackArchiveWriter.write(folder: staging, to: URL(fileURLWithPath: paths[1]), tour: "bench", version: 1)
        output.json(["points": points.count])
        return .success
    }
}
