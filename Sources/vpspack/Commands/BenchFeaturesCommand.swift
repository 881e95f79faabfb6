import Foundation
import Localizer
import VPSImageIO

/// `vpspack bench-features IMAGE`: times feature extraction (hidden; used by Scripts/bench-localize).
enum BenchFeaturesCommand: Command {
    static let name = "bench-features"
    static let summary = "time feature extraction on an image (benchmark helper)"
    static let help = """
        usage: vpspack bench-features IMAGE [--count N] [--repeat R] [--levels L] [--min-fast T] [--parallel] [--json]
               [--dump FILE]

        Decodes IMAGE once, extracts up to N features (default 1000) R times
        (default 20) and prints the median and fastest time in milliseconds of
        thread CPU time (so other processes on a shared machine do not inflate it).
        --dump FILE writes the features, one per line (x y octave angle response
        size and the descriptor's four 64-bit words in hex), to compare versions.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let parallel = arguments.flag("--parallel")
        let count = try arguments.option("--count", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1000
        let repeats = try arguments.option("--repeat", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 20
        let levels = try arguments.option("--levels", "an integer in 1...16") { Int($0).flatMap { (1...16).contains($0) ? $0 : nil } } ?? 8
        let minFast = try arguments.option("--min-fast", "an integer in 0...255") { Int($0).flatMap { (0...255).contains($0) ? $0 : nil } } ?? 7
        let dump = try arguments.option("--dump")
        let paths = arguments.positionals()
        try arguments.finish()
        guard paths.count == 1 else { throw UsageError("give exactly one IMAGE") }
        let start = BenchClock.threadMilliseconds()
        let decoded = try ImageDecoder.decode(path: paths[0])
        let decodeMs = BenchClock.threadMilliseconds() - start
        let extractor = FeatureExtractor(.init(maxFeatures: count, levels: levels, minFastThreshold: minFast, parallel: parallel))
        var times: [Double] = []
        var found = 0
        let first = extractor.extract(decoded.image) // also the warm-up
        if let dump {
            var text = ""
            for (k, d) in zip(first.keypoints, first.descriptors) {
                text += "\(k.x) \(k.y) \(k.octave) \(k.angle) \(k.response) \(k.size)"
                for lane in 0..<4 { text += " " + String(d[lane], radix: 16) }
                text += "\n"
            }
            try Data(text.utf8).write(to: URL(fileURLWithPath: dump))
        }
        for _ in 0..<repeats {
            let t0 = BenchClock.threadMilliseconds()
            let features = extractor.extract(decoded.image)
            times.append((BenchClock.threadMilliseconds() - t0))
            found = features.count
        }
        times.sort()
        let median = times[times.count / 2]
        if json {
            output.json(["image": paths[0], "width": decoded.image.width, "height": decoded.image.height, "features": found,
                         "medianMs": median, "minMs": times[0], "decodeMs": decodeMs])
        } else {
            output.out("\(paths[0]): \(decoded.image.width)x\(decoded.image.height), \(found) features, median \(format(median)) ms, fastest \(format(times[0])) ms, decode \(format(decodeMs)) ms")
        }
        return .success
    }

    private static func format(_ v: Double) -> String { String(format: "%.2f", v) }
}
