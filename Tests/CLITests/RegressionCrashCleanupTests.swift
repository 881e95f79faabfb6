import Foundation
import PackStore
import Testing

/// Regressions found by Scripts/stress-crash.
@Suite(.serialized) struct RegressionCrashCleanupTests {
    /// A download killed after `COMMIT` but before its clean-up left the installed archive's
    /// partial file in `downloads/` for good: the next `download` said "already up to date"
    /// and never looked at it. It now deletes a partial file that holds the installed archive.
    @Test func killedAfterCommitLeavesNoPartialFileOnceUpToDate() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1, size: 1_500_000)
        let crashed = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned",
                                        environment: ["VPSPACK_CRASH_POINT": CrashPoint.commitDone.rawValue])
        #expect(crashed.killedBySignal && crashed.status == SIGKILL, "status \(crashed.status): \(crashed.stderr)")
        let downloads = scene.store.appendingPathComponent("downloads")
        let before = try FileManager.default.contentsOfDirectory(atPath: downloads.path)
        #expect(before.contains { $0.hasSuffix(".partial") }, "the crash at commit-done should leave the partial file: \(before)")

        let again = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(again.status == 0 && again.stdout.contains("already up to date"), "\(again.stdout) \(again.stderr)")
        let after = try FileManager.default.contentsOfDirectory(atPath: downloads.path)
        #expect(!after.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".json") }, "left behind: \(after)")
        #expect(try scene.verifyAll().ok)
    }

    /// A partial file of another archive (a newer version being fetched) is not touched by an
    /// up-to-date check.
    @Test func upToDateCheckKeepsThePartialOfAnotherArchive() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        try scene.publish(version: 2, size: 1_500_000)
        let crashed = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned",
                                        environment: ["VPSPACK_CRASH_POINT": CrashPoint.downloadComplete.rawValue])
        #expect(crashed.killedBySignal, "status \(crashed.status): \(crashed.stderr)")
        // The server goes back to offering version 1 (installed): the version 2 partial stays for later.
        try scene.writeOffer(tour: "demo", version: 1, archive: "demo-1.vpspack")
        let again = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(again.status == 0 && again.stdout.contains("already up to date"), "\(again.stdout) \(again.stderr)")
        let downloads = try FileManager.default.contentsOfDirectory(atPath: scene.store.appendingPathComponent("downloads").path)
        #expect(downloads.contains { $0.hasSuffix(".partial") }, "the version 2 partial file was deleted: \(downloads)")
    }
}
