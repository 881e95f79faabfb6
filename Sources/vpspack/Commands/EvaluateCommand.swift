import Foundation
import Localizer
import PackBuilder
import PackFormat

/// `vpspack evaluate`: localizes a synthetic capture's queries against a pack and reports the errors.
enum EvaluateCommand: Command {
    static let name = "evaluate"
    static let summary = "localize a synthetic capture's queries against a pack and report errors"
    static let help = """
        usage: vpspack evaluate --capture DIR --pack FILE.vpspack [--json] [--dump-features OUT_DIR]

        Localizes every query of DIR/queries.json (written by `vpspack synth`)
        against the pack and compares with the ground truth; also checks that
        the out-of-map images are not localized. Prints one line per query and
        the recall at (5 cm, 1°), (25 cm, 2°), (50 cm, 5°), the median errors and
        the false-localization count. With --json, one JSON object per query and
        a summary object, one per line. --dump-features writes each query's
        features as the localizer extracts them (OUT_DIR/NAME.feat: u32 count,
        then per feature f32 x, f32 y, 32 descriptor bytes; little-endian), for
        peer pipelines in Scripts/bench-accuracy.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let capture = try arguments.required("--capture")
        let packPath = try arguments.required("--pack")
        let dump = try arguments.option("--dump-features")
        try arguments.finish()
        let pack = try ArchivePack(path: packPath)
        let localizer = try Localizer(pack: pack)
        let (inMap, outOfMap) = try PackValidation.queries(inCapture: URL(fileURLWithPath: capture))
        if let dump {
            try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
            let extractor = FeatureExtractor(LocalizerOptions().features)
            for c in inMap + outOfMap {
                let f = extractor.extract(c.image)
                var data = Data()
                func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
                u32(UInt32(f.count))
                for (k, d) in zip(f.keypoints, f.descriptors) {
                    u32(k.x.bitPattern)
                    u32(k.y.bitPattern)
                    for i in 0..<4 { withUnsafeBytes(of: d[i].littleEndian) { data.append(contentsOf: $0) } }
                }
                let name = URL(fileURLWithPath: c.name).deletingPathExtension().lastPathComponent + ".feat"
                try data.write(to: URL(fileURLWithPath: dump).appendingPathComponent(name))
            }
        }
        let report = PackValidation.run(inMap, localizer: localizer)
        let outside = PackValidation.run(outOfMap, localizer: localizer)
        for o in report.outcomes {
            if json {
                var line: [String: Any] = ["image": o.name, "localized": o.localized, "inliers": o.inliers, "ms": o.milliseconds]
                if let p = o.positionError, let r = o.rotationError {
                    line["positionError"] = p
                    line["rotationError"] = r
                }
                output.json(line)
            } else if let p = o.positionError, let r = o.rotationError {
                output.out(String(format: "%@  %7.2f cm  %6.3f°  %4d inliers  %6.1f ms", o.name, p * 100, r, o.inliers, o.milliseconds))
            } else {
                output.out("\(o.name)  not localized")
            }
        }
        let falsePositives = outside.outcomes.filter(\.localized).map(\.name)
        let summary: [String: Any] = [
            "queries": report.outcomes.count, "localized": report.localizedCount,
            "recall_5cm_1deg": report.recall(metres: 0.05, degrees: 1),
            "recall_25cm_2deg": report.recall(metres: 0.25, degrees: 2),
            "recall_50cm_5deg": report.recall(metres: 0.5, degrees: 5),
            "medianPositionError": report.medianPositionError ?? -1, "medianRotationError": report.medianRotationError ?? -1,
            "outOfMap": outside.outcomes.count, "falseLocalizations": falsePositives.count,
            "medianMilliseconds": median(report.outcomes.map(\.milliseconds)),
        ]
        if json {
            output.json(["summary": summary])
        } else {
            output.out(String(format: "recall (5 cm, 1°) %.1f %%, (25 cm, 2°) %.1f %%, (50 cm, 5°) %.1f %%; median %.2f cm, %.3f°",
                              100 * report.recall(metres: 0.05, degrees: 1), 100 * report.recall(metres: 0.25, degrees: 2),
                              100 * report.recall(metres: 0.5, degrees: 5), (report.medianPositionError ?? .nan) * 100, report.medianRotationError ?? .nan))
            output.out("out-of-map images localized: \(falsePositives.count) of \(outside.outcomes.count)" + (falsePositives.isEmpty ? "" : " (\(falsePositives.joined(separator: ", ")))"))
        }
        return .success
    }

    private static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return 0 }
        return v.sorted()[v.count / 2]
    }
}
