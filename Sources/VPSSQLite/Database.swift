internal import CSQLite

/// One SQLite connection (`sqlite3_open_v2`), closed in `deinit`.
///
/// Opens with extended result codes and a busy timeout. ``setUpWAL()`` puts the
/// database in WAL mode with `synchronous=NORMAL` and checks that both took.
/// Writers use ``inTransaction(_:_:)`` with `.immediate`, which takes the write
/// lock up front (`BEGIN IMMEDIATE`) and rolls back on any error.
///
/// ```swift
/// let db = try Database(path: "store.sqlite")
/// try db.setUpWAL()
/// try db.inTransaction(.immediate) {
///     try db.execute("INSERT INTO t VALUES (1)")
/// }
/// ```
///
/// A connection is used by one thread at a time; it is not `Sendable`.
public final class Database {
    let handle: OpaquePointer
    /// The database file.
    public let path: String
    /// How long a statement waits for another connection's lock.
    public let busyTimeoutMilliseconds: Int32

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: a reader; the snapshot starts with the first read.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: a writer; takes the write lock now, waiting up to the busy timeout.
        case immediate = "IMMEDIATE"
    }

    /// Opens (creating when `create` is true) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - readOnly: open with `SQLITE_OPEN_READONLY`.
    ///   - create: create the file when missing (ignored when `readOnly`).
    ///   - busyTimeoutMilliseconds: how long a statement waits for another connection's lock (`sqlite3_busy_timeout`).
    /// - Throws: ``DatabaseError`` when the file cannot be opened.
    public init(path: String, readOnly: Bool = false, create: Bool = true, busyTimeoutMilliseconds: Int32 = 30_000) throws(DatabaseError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(resultCode: status, message: "cannot open the database: \(message)", path: path)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows (`sqlite3_exec`).
    ///
    /// - Throws: ``DatabaseError`` with the SQL that failed.
    public func execute(_ sql: String) throws(DatabaseError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard status == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw DatabaseError(resultCode: sqlite3_extended_errcode(handle), message: message, sql: sql, path: path)
        }
    }

    /// Compiles one statement (`sqlite3_prepare_v2`).
    ///
    /// - Throws: ``DatabaseError`` for a syntax error or a missing table.
    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error(status, sql: sql)
        }
        return Statement(handle: statement, database: self, sql: sql)
    }

    /// Runs a statement with `arguments` and returns every row, each as an array of values.
    public func rows(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> [[DatabaseValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var out: [[DatabaseValue]] = []
        while try statement.step() {
            out.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return out
    }

    /// Runs a statement with `arguments` and returns the first column of the first row, if any.
    public func scalar(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) -> DatabaseValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    /// Runs a statement with `arguments`, ignoring any rows.
    public func run(_ sql: String, _ arguments: [DatabaseValue] = []) throws(DatabaseError) {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// The rowid of the last inserted row (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement (`sqlite3_changes64`).
    public var changes: Int64 { sqlite3_changes64(handle) }

    /// True while a transaction is open (`sqlite3_get_autocommit` is 0).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Switches to WAL mode with `synchronous=NORMAL`, then reads both back and fails if either did not take.
    ///
    /// - Throws: ``DatabaseError`` when the file system does not support WAL (or the mode could not be set).
    public func setUpWAL() throws(DatabaseError) {
        let mode = try scalar("PRAGMA journal_mode=WAL")?.text ?? ""
        guard mode.lowercased() == "wal" else {
            throw DatabaseError(resultCode: DatabaseError.error, message: "could not switch to WAL mode (journal_mode is '\(mode)')", sql: "PRAGMA journal_mode=WAL", path: path)
        }
        try execute("PRAGMA synchronous=NORMAL")
        let synchronous = try scalar("PRAGMA synchronous")?.integer
        guard synchronous == 1 else {
            throw DatabaseError(resultCode: DatabaseError.error, message: "could not set synchronous=NORMAL (it is \(synchronous.map(String.init) ?? "unknown"))", sql: "PRAGMA synchronous=NORMAL", path: path)
        }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws and rethrows that first error.
    ///
    /// A failed `ROLLBACK` never hides the error that caused it.
    ///
    /// - Parameters:
    ///   - kind: `.immediate` for writers (`BEGIN IMMEDIATE`), `.deferred` for readers.
    ///   - body: the work; it must use this connection only.
    /// - Throws: the first error of `BEGIN`, `body` or `COMMIT`.
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`): every read inside sees one snapshot.
    ///
    /// The transaction always ends with `ROLLBACK`, which for reads is the same as
    /// `COMMIT` but cannot fail over an error a read already reported.
    ///
    /// - Throws: the error of `BEGIN` or `body`.
    public func reading<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        defer { if isInTransaction { try? execute("ROLLBACK") } }
        return try body()
    }

    /// Gives free pages back to the file system (`PRAGMA incremental_vacuum`), then checkpoints and
    /// truncates the WAL so the space is really returned.
    ///
    /// Needs `PRAGMA auto_vacuum=INCREMENTAL` set before the first table was created.
    /// The checkpoint does not wait for readers: pages a reader still needs are copied by a later checkpoint.
    public func incrementalVacuum() throws(DatabaseError) {
        try run("PRAGMA incremental_vacuum")
        try withBusyTimeout(0) { () throws(DatabaseError) in try checkpoint(truncate: true) }
    }

    /// Runs `body` with another busy timeout (`sqlite3_busy_timeout`), then restores the usual one.
    ///
    /// For optional writes that must not make a reader wait behind a long writer.
    public func withBusyTimeout<T, E: Error>(_ milliseconds: Int32, _ body: () throws(E) -> T) throws(E) -> T {
        sqlite3_busy_timeout(handle, milliseconds)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        return try body()
    }

    /// Copies the WAL into the database file (`PRAGMA wal_checkpoint`), truncating the WAL when `truncate`.
    public func checkpoint(truncate: Bool) throws(DatabaseError) {
        try run("PRAGMA wal_checkpoint(\(truncate ? "TRUNCATE" : "PASSIVE"))")
    }

    /// `PRAGMA integrity_check`: an empty array when the database is sound, else SQLite's findings.
    public func integrityCheck() throws(DatabaseError) -> [String] {
        let findings = try rows("PRAGMA integrity_check").compactMap { $0.first?.text }
        return findings == ["ok"] ? [] : findings
    }

    func error(_ status: Int32, sql: String?) -> DatabaseError {
        DatabaseError(
            resultCode: sqlite3_extended_errcode(handle) != 0 ? sqlite3_extended_errcode(handle) : status,
            message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path
        )
    }
}

@available(*, unavailable)
extension Database: Sendable {}
