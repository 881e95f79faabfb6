import Foundation
import PackStore
import Testing

/// Crash safety and concurrency of the store, with real processes: a child `vpspack` is killed
/// with SIGKILL (at named crash points and at arbitrary moments) or paused mid-commit while
/// other processes read the same store.
///
/// Named crash points exist in debug builds only, which is how `swift test` builds.
@Suite(.serialized) struct CrashSafetyTests {
    static let downloadPoints = CrashPoint.allCases.filter { $0 != .removeBeforeCommit }

    @Test(arguments: downloadPoints)
    func killedAtANamedCrashPointLeavesOneCompleteVersion(point: CrashPoint) throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        try scene.publish(version: 2, size: 2_500_000)

        let crashed = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned",
                                        environment: ["VPSPACK_CRASH_POINT": point.rawValue])
        #expect(crashed.killedBySignal && crashed.status == SIGKILL,
                "the child must die at \(point.rawValue) (crash points exist in debug builds only): status \(crashed.status), \(crashed.stderr)")

        let expected = point == .commitDone ? 2 : 1
        let check = try scene.verifyAll()
        #expect(check.ok, "verify after a crash at \(point.rawValue): \(check.result.stdout) \(check.result.stderr)")
        #expect(check.versions == ["demo": expected], "after a crash at \(point.rawValue)")

        let resumed = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try scene.installedVersion() == 2)
        #expect(try scene.verifyAll().ok)
    }

    @Test func killedWhileRemovingKeepsThePack() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        let crashed = try scene.vpspack("remove", "--all", environment: ["VPSPACK_CRASH_POINT": CrashPoint.removeBeforeCommit.rawValue])
        #expect(crashed.killedBySignal && crashed.status == SIGKILL, "status \(crashed.status)")
        let check = try scene.verifyAll()
        #expect(check.ok && check.versions == ["demo": 1])
        #expect(try scene.vpspack("remove", "--all").status == 0)
        #expect(try scene.installedVersion() == nil)
    }

    @Test func killedAtArbitraryMomentsLeavesOneCompleteVersion() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        var installed = 1
        var next = 2
        // Delays spread over the life of a download + commit of a ~12 MB pack in a debug build.
        for delay in [0.005, 0.03, 0.08, 0.15, 0.25, 0.4, 0.6] {
            try scene.publish(version: next, size: 12_000_000, seed: UInt64(next * 7))
            let child = try scene.start(["download", "--server", "site", "--tour", "demo", "--allow-unsigned"])
            Thread.sleep(forTimeInterval: delay)
            child.kill()
            let result = try child.wait()
            let check = try scene.verifyAll()
            #expect(check.ok, "verify after SIGKILL at \(delay) s: \(check.result.stdout) \(check.result.stderr)")
            let version = check.versions["demo"]
            #expect(version == installed || version == next, "after SIGKILL at \(delay) s: version \(String(describing: version)), status \(result.status)")
            installed = version ?? installed
            next += 1
        }
        let finished = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try scene.installedVersion() == next - 1)
        #expect(try scene.verifyAll().ok)
    }

    @Test(arguments: [CrashPoint.commitMidContent, .commitSwitched, .commitBeforeCommit])
    func readersInOtherProcessesSeeTheOldVersionDuringACommit(point: CrashPoint) throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        try scene.publish(version: 2, size: 2_500_000)
        let pause = scene.root.appendingPathComponent("pause-\(point.rawValue)")
        let child = try scene.start(
            ["download", "--server", "site", "--tour", "demo", "--allow-unsigned"],
            environment: ["VPSPACK_PAUSE_POINT": point.rawValue, "VPSPACK_PAUSE_FILE": pause.path]
        )
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pause.path) && child.process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(FileManager.default.fileExists(atPath: pause.path), "the child reached \(point.rawValue)")

        // The writer holds its transaction open; every reader sees version 1, complete.
        let check = try scene.verifyAll()
        #expect(check.ok && check.versions == ["demo": 1], "\(check.result.stdout) \(check.result.stderr)")
        let inspect = try scene.vpspack("inspect", "--server", "site", "--tour", "demo", "--json")
        #expect(try inspect.json()["version"] as? Int == 1)
        let tags = try scene.vpspack("attachment", "--server", "site", "--tour", "demo", "tags.json")
        #expect(tags.stdout == "{\"tags\":[1]}")

        try FileManager.default.removeItem(at: pause)
        let result = try child.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let after = try scene.verifyAll()
        #expect(after.ok && after.versions == ["demo": 2])
        let newTags = try scene.vpspack("attachment", "--server", "site", "--tour", "demo", "tags.json")
        #expect(newTags.stdout == "{\"tags\":[2]}")
    }

    @Test func readersRunningThroughACommitAlwaysSeeACompleteVersion() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1, size: 4_000_000)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        try scene.publish(version: 2, size: 12_000_000)
        let child = try scene.start(["download", "--server", "site", "--tour", "demo", "--allow-unsigned"])
        var reads = 0
        repeat {
            let check = try scene.verifyAll()
            #expect(check.ok, "\(check.result.stdout) \(check.result.stderr)")
            #expect(check.versions["demo"] == 1 || check.versions["demo"] == 2)
            reads += 1
        } while child.process.isRunning
        #expect(try child.wait().status == 0)
        #expect(reads >= 1)
        #expect(try scene.installedVersion() == 2)
    }

    @Test func severalProcessesOpenOneFreshStoreAtOnce() throws {
        let scene = try StoreScene()
        try scene.publish(tour: "a", version: 1)
        try scene.publish(tour: "b", version: 1, seed: 11)
        let children = [
            try scene.start(["download", "--server", "site", "--tour", "a", "--allow-unsigned"]),
            try scene.start(["download", "--server", "site", "--tour", "b", "--allow-unsigned"]),
            try scene.start(["list", "--json"]),
            try scene.start(["verify", "--all"]),
        ]
        for child in children {
            let result = try child.wait()
            #expect(result.status == 0, "\(child.process.arguments ?? []): \(result.stderr)")
        }
        let check = try scene.verifyAll()
        #expect(check.ok && check.versions == ["a": 1, "b": 1])
    }

    @Test func twoDownloadsOfOneTourNeverCorruptTheStore() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1, size: 8_000_000)
        let first = try scene.start(["download", "--server", "site", "--tour", "demo", "--allow-unsigned"])
        let second = try scene.start(["download", "--server", "site", "--tour", "demo", "--allow-unsigned"])
        let results = [try first.wait(), try second.wait()]
        #expect(results.contains { $0.status == 0 })
        for result in results where result.status != 0 {
            #expect(result.status == 74 && result.stderr.contains("being downloaded by another vpspack process"), "\(result.stderr)")
        }
        let check = try scene.verifyAll()
        #expect(check.ok && check.versions == ["demo": 1])
        let downloads = try FileManager.default.contentsOfDirectory(atPath: scene.store.appendingPathComponent("downloads").path)
        #expect(!downloads.contains { $0.hasSuffix(".partial") }, "no partial file is left: \(downloads)")
    }
}
