import Localizer
import VPSImageIO

/// `vpspack learn-brief IMAGE...`: selects the BRIEF tests (hidden; a development tool whose
/// output is compiled into Sources/Localizer/Features/BRIEFSelection.swift).
enum LearnBRIEFCommand: Command {
    static let name = "learn-brief"
    static let summary = "select the BRIEF tests from training images (development tool)"
    static let help = """
        usage: vpspack learn-brief IMAGE... [--features N]

        Extracts up to N keypoints (default 2000) per image, evaluates every candidate
        BRIEF test on them and prints the 256 selected candidate indices as a Swift
        array literal.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let features = try arguments.option("--features", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 2000
        let paths = arguments.positionals()
        try arguments.finish()
        guard !paths.isEmpty else { throw UsageError("give at least one IMAGE") }
        var images: [GrayImage] = []
        for path in paths { images.append(try ImageDecoder.decode(path: path).image) }
        let selection = BRIEFLearning.select(images: images, featuresPerImage: features)
        var lines: [String] = []
        for start in stride(from: 0, to: selection.count, by: 16) {
            lines.append("        " + selection[start..<min(start + 16, selection.count)].map(String.init).joined(separator: ", ") + ",")
        }
        output.out("[\n" + lines.joined(separator: "\n") + "\n    ]")
        return .success
    }
}
