/// An error from libarchive or from the files it reads and writes.
///
/// Carries libarchive's errno-style code, its message and the archive path,
/// so one sentence says what failed and where.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `archive_errno()` (a POSIX errno or libarchive's own code), 0 when unknown.
    public let code: Int32
    /// `archive_error_string()`, or a description of the failed step.
    public let message: String
    /// The archive file.
    public let path: String

    public init(code: Int32, message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(path): \(message)" }
}
