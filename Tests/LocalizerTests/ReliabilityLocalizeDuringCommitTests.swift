import Foundation
import Localizer
import PackFormat
import Testing

/// `vpspack localize` from the store while another process commits a new version of the
/// same tour: it reads one complete version (the old one while the commit is open) and
/// localizes, before and after.
@Suite(.serialized) struct ReliabilityLocalizeDuringCommitTests {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Starts the built vpspack in `dir` with the store in `dir/store`.
    static func start(_ arguments: [String], in dir: URL, environment: [String: String] = [:]) throws -> (Process, URL, URL) {
        let process = Process()
        process.executableURL = try LocalizeCommandTests.binary()
        process.arguments = arguments
        process.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["VPSPACK_STORE"] = dir.appendingPathComponent("store").path
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = dir.appendingPathComponent(".out-\(UUID().uuidString)")
        let err = dir.appendingPathComponent(".err-\(UUID().uuidString)")
        try Data().write(to: out)
        try Data().write(to: err)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        return (process, out, err)
    }

    static func finish(_ started: (Process, URL, URL)) throws -> Result {
        started.0.waitUntilExit()
        return Result(status: started.0.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: started.1), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: started.2), as: UTF8.self))
    }

    static func run(_ arguments: [String], in dir: URL) throws -> Result {
        try finish(try start(arguments, in: dir))
    }

    @Test func localizeDuringACommitUsesOneCompleteVersion() throws {
        let fixture = try LocalizeCommandTests.Fixture()
        defer { fixture.remove() }
        let dir = fixture.root

        // Version 2: the same map with an attachment added, so its archive differs.
        let folder = dir.appendingPathComponent("v2")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("map"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        for (path, data) in try LocalizeEndToEndTests.sharedMap.get().data.encoded() {
            try data.write(to: folder.appendingPathComponent(path))
        }
        try Data(repeating: 7, count: 3_000_000).write(to: folder.appendingPathComponent("attachments/extra.bin"))
        try PackArchiveWriter.write(folder: folder, to: dir.appendingPathComponent("wall-2.vpspack"), tour: "wall", version: 2)

        // A signed site with version 1, its key pinned, version 1 installed.
        let keygen = try Self.run(["keygen", "--out", "key"], in: dir)
        let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keygen.status == 0 && publicKey.count == 64, "\(keygen.stdout) \(keygen.stderr)")
        #expect(try Self.run(["publish", "wall.vpspack", "--site", "site", "--key", "key"], in: dir).status == 0)
        #expect(try Self.run(["trust", "--server", "site", "--key", publicKey], in: dir).status == 0)
        let first = try Self.run(["download", "--server", "site", "--tour", "wall"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.run(["publish", "wall-2.vpspack", "--site", "site", "--key", "key"], in: dir).status == 0)

        // Version 2's commit pauses after switching the tour's row, its transaction open.
        let pause = dir.appendingPathComponent("pause")
        let writer = try Self.start(["download", "--server", "site", "--tour", "wall"], in: dir,
                                    environment: ["VPSPACK_PAUSE_POINT": "commit-switched", "VPSPACK_PAUSE_FILE": pause.path])
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pause.path) && writer.0.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(FileManager.default.fileExists(atPath: pause.path), "the writer reached commit-switched")

        let localize = ["localize", "q.png", "--server", "site", "--tour", "wall", "--intrinsics", LocalizeCommandTests.intrinsics, "--json"]
        let during = try Self.run(localize, in: dir)
        #expect(during.status == 0 && during.stdout.contains("\"localized\":true"), "during the commit: \(during.stdout) \(during.stderr)")
        let list = try Self.run(["list", "--json"], in: dir)
        #expect(list.stdout.contains("\"version\":1"), "\(list.stdout)")

        try? FileManager.default.removeItem(at: pause)
        let committed = try Self.finish(writer)
        #expect(committed.status == 0, "\(committed.stderr)")
        let after = try Self.run(localize, in: dir)
        #expect(after.status == 0 && after.stdout.contains("\"localized\":true"), "after the commit: \(after.stdout) \(after.stderr)")
        #expect(try Self.run(["list", "--json"], in: dir).stdout.contains("\"version\":2"))
        #expect(try Self.run(["verify", "--all"], in: dir).status == 0)
    }
}
