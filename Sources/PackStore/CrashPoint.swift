import Foundation

/// Named places in the commit and remove protocols where tests stop the process.
///
/// In debug builds, when `VPSPACK_CRASH_POINT` names a point, the process kills
/// itself with SIGKILL on reaching it (no cleanup, no flush: a power cut).
/// When `VPSPACK_PAUSE_POINT` names it, the process creates the file named by
/// `VPSPACK_PAUSE_FILE` and waits (up to 60 s) until a test deletes it, so a
/// test can look at the store from another process in the middle of a commit.
/// Release builds compile both to nothing.
public enum CrashPoint: String, CaseIterable, Sendable {
    /// The archive is fully in the partial file, nothing committed yet.
    case downloadComplete = "download-complete"
    /// Part of the archive is in the partial file.
    case downloadMidStream = "download-mid-stream"
    /// `BEGIN IMMEDIATE` done.
    case commitBegun = "commit-begun"
    /// The first content chunk is written.
    case commitMidContent = "commit-mid-content"
    /// Every file's content is written and checked.
    case commitContentWritten = "commit-content-written"
    /// The (server, tour) row points at the new version; old content not yet dropped.
    case commitSwitched = "commit-switched"
    /// Everything done but `COMMIT`.
    case commitBeforeCommit = "commit-before-commit"
    /// `COMMIT` done; vacuum and partial-file clean-up not yet.
    case commitDone = "commit-done"
    /// Remove: rows deleted, `COMMIT` not yet run.
    case removeBeforeCommit = "remove-before-commit"

    /// Stops or pauses here when the environment selects this point (debug builds only).
    public func reach() {
        #if DEBUG
        let environment = ProcessInfo.processInfo.environment
        if environment["VPSPACK_CRASH_POINT"] == rawValue {
            kill(getpid(), SIGKILL)
        }
        if environment["VPSPACK_PAUSE_POINT"] == rawValue, let file = environment["VPSPACK_PAUSE_FILE"] {
            _ = FileManager.default.createFile(atPath: file, contents: Data(rawValue.utf8))
            let deadline = Date().addingTimeInterval(60)
            while FileManager.default.fileExists(atPath: file), Date() < deadline {
                usleep(10_000)
            }
        }
        #endif
    }
}
