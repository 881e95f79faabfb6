import Foundation
import Localizer

/// `vpspack bench-pose FILE`: times the pose solver on correspondence sets
/// written by Scripts/pybench/pose_bench.py (internal, for benchmarks).
///
/// The file is JSON: `{"threshold": px, "repeats": n, "problems": [{"camera":
/// [fx, fy, cx, cy(, k1, k2, p1, p2)], "width": w, "height": h, "pixels":
/// [u0, v0, u1, v1, ...], "points": [x0, y0, z0, ...]}, ...]}`. For each
/// problem one JSON line: the world-to-camera pose in OpenCV axes, inlier
/// count, decision, and the median time of the pose stage over the repeats.
enum BenchPoseCommand: Command {
    static let name = "bench-pose"
    static let summary = "internal: time the pose solver on a correspondence file"
    static let help = """
        usage: vpspack bench-pose FILE [--threshold PX] [--repeats N] [--no-lo] [--no-inner]

        Internal benchmark helper (see Scripts/pybench/pose_bench.py). Reads
        2D-3D correspondence sets from FILE (JSON), solves each with the pose
        solver (P3P, LO-RANSAC, refinement, confidence) and prints one JSON
        object per set with the pose and the median solve time in ms.
        --no-lo turns local optimisation off (to measure what it buys);
        --no-inner keeps it but without its inner RANSAC.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let thresholdOption = try arguments.option("--threshold", "a positive number of pixels") { Double($0).flatMap { $0 > 0 ? $0 : nil } }
        let repeatsOption = try arguments.option("--repeats", "a positive whole number") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        let noLocalOptimization = arguments.flag("--no-lo")
        let noInner = arguments.flag("--no-inner")
        let files = arguments.positionals()
        try arguments.finish()
        guard files.count == 1 else { throw UsageError("give exactly one correspondence file") }
        let data = try Data(contentsOf: URL(fileURLWithPath: files[0]))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let problems = root["problems"] as? [[String: Any]] else {
            throw UsageError("\(files[0]): expected a JSON object with a 'problems' array")
        }
        let threshold = thresholdOption ?? (root["threshold"] as? Double) ?? 4
        let repeats = repeatsOption ?? (root["repeats"] as? Int) ?? 1
        var options = PoseSolverOptions()
        options.estimator.threshold = threshold
        options.estimator.localOptimization = !noLocalOptimization
        if noInner { options.estimator.innerSamples = 0 }
        try options.validate()
        let solver = PoseSolver(options: options)
        for (index, problem) in problems.enumerated() {
            func numbers(_ key: String) throws -> [Double] {
                guard let list = problem[key] as? [Any] else { throw UsageError("\(files[0]): problem \(index) lacks '\(key)'") }
                return list.compactMap { ($0 as? NSNumber)?.doubleValue }
            }
            let k = try numbers("camera")
            let flat = try numbers("pixels")
            let xyz = try numbers("points")
            guard k.count == 4 || k.count == 8, flat.count % 2 == 0, xyz.count % 3 == 0, flat.count / 2 == xyz.count / 3,
                  let width = problem["width"] as? Int, let height = problem["height"] as? Int else {
                throw UsageError("\(files[0]): problem \(index) is malformed")
            }
            var camera = CameraIntrinsics(fx: k[0], fy: k[1], cx: k[2], cy: k[3])
            if k.count == 8 { (camera.k1, camera.k2, camera.p1, camera.p2) = (k[4], k[5], k[6], k[7]) }
            try camera.validate(width: width, height: height)
            let pixels = stride(from: 0, to: flat.count, by: 2).map { SIMD2(flat[$0], flat[$0 + 1]) }
            let points = stride(from: 0, to: xyz.count, by: 3).map { Vector3(xyz[$0], xyz[$0 + 1], xyz[$0 + 2]) }
            var times: [Double] = []
            var outcome: PoseOutcome?
            for _ in 0..<repeats {
                let start = DispatchTime.now().uptimeNanoseconds
                outcome = solver.solve(pixels: pixels, points: points, camera: camera, width: width, height: height)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            var line: [String: Any] = ["index": index, "ms": times[times.count / 2], "matches": pixels.count]
            if let o = outcome, let e = o.estimate {
                let r = e.pose.rotation
                line["found"] = true
                line["rotation"] = [r.r0.x, r.r0.y, r.r0.z, r.r1.x, r.r1.y, r.r1.z, r.r2.x, r.r2.y, r.r2.z]
                line["translation"] = e.pose.translation.array
                line["inliers"] = e.inlierCount
                line["iterations"] = e.iterations
                line["localized"] = o.localized
                line["confidence"] = o.confidence
            } else {
                line["found"] = false
                line["localized"] = false
            }
            output.json(line)
        }
        return .success
    }
}
