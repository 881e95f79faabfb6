import Foundation
import Testing

/// The sample in Packs/ that README's first command runs: it must stay loadable and
/// accurate with the current code, so a change to the pack or map format that
/// forgets to regenerate it (Scripts/make-demo) fails here, not in a newcomer's hands.
@Suite("the embedded demo in Packs/", .serialized)
struct DemoPackTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let packs = root.appendingPathComponent("Packs")

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("the published site verifies deeply against the demo publisher key")
    func siteVerifiesDeeply() throws {
        let key = try String(contentsOf: Self.packs.appendingPathComponent("demo/publisher.pub"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try StoreCLI.run(
            ["verify", "--deep", Self.packs.appendingPathComponent("site").path, "--key", key, "--min-recall", "1"], in: dir)
        #expect(result.status == 0, "verify --deep of Packs/site failed:\n\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("offer signature verifies"), "\(result.stdout)")
    }

    @Test("the sample queries localize near their ground truth and the out-of-map images do not")
    func queriesMatchGroundTruth() throws {
        let truthData = try Data(contentsOf: Self.packs.appendingPathComponent("demo/ground-truth.json"))
        let truth = try #require(try JSONSerialization.jsonObject(with: truthData) as? [String: Any])
        let queries = try #require(truth["queries"] as? [[String: Any]])
        let outside = try #require(truth["outOfMap"] as? [String])
        try #require(!queries.isEmpty && !outside.isEmpty, "ground-truth.json lists no queries")

        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = Self.packs.appendingPathComponent("site/tours/demo/demo-1.vpspack").path
        let images = (queries.compactMap { $0["image"] as? String } + outside)
            .map { Self.packs.appendingPathComponent("demo/queries/\($0)").path }
        let result = try StoreCLI.run(["localize"] + images + ["--pack", archive, "--json"], in: dir)
        // Some images (the out-of-map ones) are not localized, so the status is 1, never a usage or data error.
        #expect(result.status == 1, "localize exited \(result.status): \(result.stderr)")

        var results: [String: [String: Any]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let image = try #require(object["image"] as? String)
            results[URL(fileURLWithPath: image).lastPathComponent] = object
        }
        for query in queries {
            let name = try #require(query["image"] as? String)
            let truthPosition = try #require(query["position"] as? [Double])
            let r = try #require(results[name], "no result for \(name)")
            #expect(r["localized"] as? Bool == true, "\(name) was not localized: \(r["reason"] ?? "")")
            guard let position = r["position"] as? [Double], position.count == 3 else { continue }
            let error = sqrt(zip(position, truthPosition).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
            #expect(error < 0.1, "\(name): position error \(error) m")
        }
        for name in outside {
            let r = try #require(results[name], "no result for \(name)")
            #expect(r["localized"] as? Bool == false, "\(name) is not in the venue but was localized")
        }
    }
}
