public import Foundation

/// Durability helpers: a file's bytes and its name survive a power cut once these return.
public enum DurableFile {
    /// Flushes the directory entry table of `path` to disk (fsync of the directory).
    ///
    /// Best effort: some file systems refuse to open directories for this, which is ignored.
    public static func syncDirectory(_ path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        try? handle.synchronize()
        try? handle.close()
    }

    /// Writes `data` to `url` durably: temporary file, fsync, rename, fsync of the directory.
    ///
    /// - Throws: Foundation's error when a step fails; the temporary file is removed.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        _ = FileManager.default.createFile(atPath: temporary.path, contents: nil)
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            try moveIntoPlace(temporary, url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        syncDirectory(directory.path)
    }

    /// Renames `source` over `destination` in one step (`rename(2)`), replacing it when it exists.
    public static func moveIntoPlace(_ source: URL, _ destination: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSLocalizedDescriptionKey: "cannot rename \(source.lastPathComponent) to \(destination.path): \(String(cString: strerror(errno)))"])
        }
    }
}
