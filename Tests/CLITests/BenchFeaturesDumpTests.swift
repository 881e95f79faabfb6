import Foundation
import Testing

/// `vpspack bench-features --dump`, which the extractor's speed work relies on to show
/// that a faster version gives the same features as the one before it.
@Suite("bench-features --dump")
struct BenchFeaturesDumpTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the dump holds one line per feature, with sane fields, the same on every run")
    func dump() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = Self.root.appendingPathComponent("Packs/demo/queries/query_000.jpg").path
        var dumps: [String] = []
        for run in 0..<2 {
            let file = dir.appendingPathComponent("features-\(run).txt").path
            let result = try StoreCLI.run(["bench-features", image, "--count", "300", "--repeat", "1", "--json", "--dump", file], in: dir)
            #expect(result.status == 0, "bench-features exited \(result.status): \(result.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let count = try #require(summary["features"] as? Int)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(count > 200 && count <= 300, "\(count) features")
            #expect(lines.count == count, "\(lines.count) lines for \(count) features")
            for line in lines {
                let fields = line.split(separator: " ")
                try #require(fields.count == 10, "line '\(line)'")
                let x = try #require(Float(fields[0])), y = try #require(Float(fields[1]))
                let octave = try #require(Int(fields[2])), angle = try #require(Float(fields[3]))
                #expect(x >= 0 && x < 640 && y >= 0 && y < 480 && (0..<8).contains(octave) && angle >= 0 && angle < 360, "line '\(line)'")
                #expect(fields[6...].allSatisfy { UInt64($0, radix: 16) != nil }, "line '\(line)'")
            }
            dumps.append(text)
        }
        #expect(dumps[0] == dumps[1])
    }
}
