public import Foundation

/// Starts child processes for tests with stdout and stderr captured in files.
///
/// Files rather than pipes: a child that writes more than a pipe holds never
/// blocks, and a killed child leaves what it wrote behind for the test to read.
public enum CapturedProcess {
    /// Runs `process` in `directory` with `environment`, stdin from /dev/null and
    /// stdout/stderr into fresh files in `directory`; returns those two files.
    public static func launch(_ process: Process, in directory: URL, environment: [String: String]) throws -> (stdout: URL, stderr: URL) {
        process.environment = environment
        process.currentDirectoryURL = directory
        let id = UUID().uuidString
        let out = directory.appendingPathComponent(".out-\(id)")
        let err = directory.appendingPathComponent(".err-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (out, err)
    }
}
