import Foundation
import PackStore
import Testing

/// Concurrency cases CrashSafetyTests does not cover: `list` and `inspect` during a paused
/// commit, and many reader processes against one store while a new version commits.
@Suite(.serialized) struct ReliabilityConcurrencyTests {
    /// Waits (up to 60 s) until the paused child has created its pause file.
    static func waitForPause(_ pause: URL, _ child: RunningCLI) {
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pause.path) && child.process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    @Test func listAndInspectDuringACommitShowTheOldVersionWhole() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        let v1 = try scene.vpspack("inspect", "--server", "site", "--tour", "demo", "--json").json()
        try scene.publish(version: 2, size: 2_000_000)
        let pause = scene.root.appendingPathComponent("pause")
        let child = try scene.start(
            ["download", "--server", "site", "--tour", "demo", "--allow-unsigned"],
            environment: ["VPSPACK_PAUSE_POINT": CrashPoint.commitSwitched.rawValue, "VPSPACK_PAUSE_FILE": pause.path]
        )
        Self.waitForPause(pause, child)
        #expect(FileManager.default.fileExists(atPath: pause.path), "the child reached \(CrashPoint.commitSwitched.rawValue)")

        // The writer has switched the row inside its open transaction; readers still see version 1, whole.
        let list = try scene.vpspack("list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        let packs = try list.json()["packs"] as? [[String: Any]] ?? []
        #expect(packs.count == 1 && packs.first?["version"] as? Int == 1, "\(list.stdout)")
        let inspect = try scene.vpspack("inspect", "--server", "site", "--tour", "demo", "--json")
        let during = try inspect.json()
        #expect(during["version"] as? Int == 1)
        func files(_ object: [String: Any]) -> [String: String] {
            var out: [String: String] = [:]
            for file in object["files"] as? [[String: Any]] ?? [] {
                if let path = file["path"] as? String { out[path] = file["sha256"] as? String ?? "?" }
            }
            return out
        }
        #expect(!files(v1).isEmpty && files(during) == files(v1), "inspect during the commit lists version 1's files: \(inspect.stdout)")

        try FileManager.default.removeItem(at: pause)
        #expect(try child.wait().status == 0)
        #expect(try scene.installedVersion() == 2)
        #expect(try scene.verifyAll().ok)
    }

    @Test func manyReaderProcessesDuringACommit() throws {
        let scene = try StoreScene()
        try scene.publish(tour: "demo", version: 1, size: 1_000_000)
        try scene.publish(tour: "other", version: 1, size: 500_000, seed: 5)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "other", "--allow-unsigned").status == 0)
        try scene.publish(version: 2, size: 8_000_000)

        let writer = try scene.start(["download", "--server", "site", "--tour", "demo", "--allow-unsigned"])
        let commands: [[String]] = [
            ["list", "--json"], ["list", "--json"], ["list", "--json"],
            ["inspect", "--server", "site", "--tour", "demo", "--json"], ["inspect", "--server", "site", "--tour", "other", "--json"],
            ["verify", "--all", "--json"], ["verify", "--server", "site", "--tour", "other", "--json"],
            ["attachment", "--server", "site", "--tour", "other", "tags.json"],
        ]
        var rounds = 0
        repeat {
            let readers = try commands.map { try scene.start($0) }
            for (command, reader) in zip(commands, readers) {
                let result = try reader.wait()
                #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
                if command[0] == "inspect", command.contains("demo") {
                    let version = try result.json()["version"] as? Int
                    #expect(version == 1 || version == 2, "inspect saw version \(String(describing: version))")
                }
                if command[0] == "verify" { #expect(try result.json()["ok"] as? Bool == true, "\(result.stdout)") }
                if command[0] == "attachment" { #expect(result.stdout == "{\"tags\":[1]}") }
            }
            rounds += 1
        } while writer.process.isRunning && rounds < 20
        #expect(try writer.wait().status == 0)
        let check = try scene.verifyAll()
        #expect(check.ok && check.versions == ["demo": 2, "other": 1], "\(check.result.stdout)")
    }
}
