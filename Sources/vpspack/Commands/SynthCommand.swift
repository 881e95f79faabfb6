import Foundation
import PackBuilder

/// `vpspack synth`: renders a synthetic venue capture (frames, depth, transforms.json, queries).
enum SynthCommand: Command {
    static let name = "synth"
    static let summary = "render a synthetic venue capture with exact poses and depth"
    static let help = """
        usage: vpspack synth --out DIR [--seed N] [--frames N] [--queries N] [--size WxH]
                             [--venue room|building] [--rooms N] [--motion-blur] [--noise SIGMA] [--json]

        Renders a procedurally textured venue by ray casting and writes a posed
        capture: images/, depth/ (16-bit, millimetres), transforms.json
        (instant-ngp/nerfstudio convention), held-out queries with ground truth
        (queries/, queries.json) and out-of-map images (outside/).
        The same options always give the same bytes.

        options:
          --out DIR         directory to write (created)
          --seed N          venue, path and noise seed (default 1)
          --frames N        mapping frames along the walk (default 400)
          --queries N       held-out query frames (default 20)
          --size WxH        image size (default 640x480)
          --venue KIND      room (one room) or building (two floors, stairs; default)
          --rooms N         rooms on each side of each corridor (building; default 2)
          --motion-blur     blur each image by the walker's motion
          --noise SIGMA     sensor noise standard deviation in grey levels (default 2)
          --json            print a JSON summary
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        var options = SynthOptions()
        let out = try arguments.required("--out")
        options.seed = try arguments.option("--seed", "a non-negative integer") { UInt64($0) } ?? options.seed
        options.frames = try arguments.option("--frames", "an integer of at least 2") { Int($0).flatMap { $0 >= 2 ? $0 : nil } } ?? options.frames
        options.queries = try arguments.option("--queries", "a non-negative integer") { Int($0).flatMap { $0 >= 0 ? $0 : nil } } ?? options.queries
        if let size = try arguments.option("--size", "WIDTHxHEIGHT, e.g. 640x480", parseSize) {
            options.width = size.0
            options.height = size.1
        }
        let venue = try arguments.option("--venue") ?? "building"
        let rooms = try arguments.option("--rooms", "an integer from 1 to 50") { Int($0).flatMap { (1...50).contains($0) ? $0 : nil } } ?? 2
        switch venue {
        case "room": options.venue = .room
        case "building": options.venue = .building(roomsPerSide: rooms)
        default: throw UsageError("--venue \(venue): expected room or building")
        }
        options.motionBlur = arguments.flag("--motion-blur")
        options.noiseSigma = try arguments.option("--noise", "a number from 0 to 50") { Double($0).flatMap { (0...50).contains($0) ? $0 : nil } } ?? 2
        let json = arguments.flag("--json")
        try arguments.finish()

        let progress = ProgressLine(output: output, label: "rendering")
        let summary = try SyntheticCapture.write(options, to: URL(fileURLWithPath: out), progress: progress.update)
        progress.finish()
        if json {
            output.json(["frames": summary.frames, "queries": summary.queries, "outOfMap": summary.outOfMap,
                         "pathLength": summary.pathLength, "quads": summary.quads, "transforms": summary.transforms.path,
                         "secondsPerFrame": summary.secondsPerFrame])
        } else {
            output.out("wrote \(summary.frames) frames, \(summary.queries) queries and \(summary.outOfMap) out-of-map images to \(out)")
            output.out(String(format: "venue: %d quads, walk %.1f m; %.3f s per frame", summary.quads, summary.pathLength, summary.secondsPerFrame))
        }
        return .success
    }

    static func parseSize(_ text: String) -> (Int, Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...8192).contains(w), (16...8192).contains(h) else { return nil }
        return (w, h)
    }
}

/// A progress line on stderr, redrawn in place when stderr is a terminal; silent otherwise.
final class ProgressLine: @unchecked Sendable {
    private let output: Output
    private let label: String
    private var lastDrawn = -1

    init(output: Output, label: String) {
        self.output = output
        self.label = label
    }

    func update(_ done: Int, _ total: Int) {
        guard output.stderrIsTerminal, total > 0 else { return }
        let percent = done * 100 / total
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30, filled = done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
    }

    func finish() {
        guard output.stderrIsTerminal, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
