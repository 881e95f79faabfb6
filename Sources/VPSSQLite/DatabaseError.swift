/// An error from SQLite: the extended result code, SQLite's message, and the SQL that failed.
///
/// Match it in `catch` by ``resultCode`` or its primary code:
///
/// ```swift
/// do { try db.execute("INSERT ...") }
/// catch let error as DatabaseError where error.primaryCode == DatabaseError.busy { ... }
/// ```
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`).
    public let resultCode: Int32
    /// `sqlite3_errmsg` at the time of the failure, or the wrapper's own description.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?
    /// The database file.
    public let path: String

    public init(resultCode: Int32, message: String, sql: String? = nil, path: String) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code: the low 8 bits of ``resultCode``.
    public var primaryCode: Int32 { resultCode & 0xff }

    /// SQLITE_ERROR: generic error (also used by the wrapper for its own checks).
    public static let error: Int32 = 1
    /// SQLITE_BUSY: another connection holds the lock past the busy timeout.
    public static let busy: Int32 = 5
    /// SQLITE_READONLY.
    public static let readOnly: Int32 = 8
    /// SQLITE_IOERR.
    public static let ioError: Int32 = 10
    /// SQLITE_CORRUPT: the database file is damaged.
    public static let corrupt: Int32 = 11
    /// SQLITE_FULL: the disk is full.
    public static let full: Int32 = 13
    /// SQLITE_CANTOPEN.
    public static let cannotOpen: Int32 = 14
    /// SQLITE_CONSTRAINT.
    public static let constraint: Int32 = 19
    /// SQLITE_NOTADB: the file is not an SQLite database.
    public static let notADatabase: Int32 = 26

    public var description: String {
        var text = "SQLite error \(resultCode) in \(path): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
