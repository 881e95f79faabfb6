internal import CSQLite

/// A value read from or bound to a statement.
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The integer, when this is one.
    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The text, when this is text.
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    /// The bytes, when this is a blob.
    public var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}

extension DatabaseValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

/// A compiled statement (`sqlite3_stmt`), finalized in `deinit`.
///
/// Bind parameters (1-based, as SQLite counts), ``step()`` until it returns
/// false, read columns (0-based) while it returns true.
///
/// ```swift
/// let s = try db.prepare("SELECT data FROM chunks WHERE file_id = ? ORDER BY seq")
/// try s.bind([.integer(id)])
/// while try s.step() { s.withBlob(at: 0) { hasher.update($0) } }
/// ```
public final class Statement {
    private let handle: OpaquePointer
    private let database: Database
    /// The statement's SQL text.
    public let sql: String

    init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to parameters 1, 2, ...
    public func bind(_ values: [DatabaseValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            try bind(value, at: Int32(i + 1))
        }
    }

    /// Binds one value to parameter `index` (1-based).
    public func bind(_ value: DatabaseValue, at index: Int32) throws(DatabaseError) {
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let v): status = sqlite3_bind_int64(handle, index, v)
        case .real(let v): status = sqlite3_bind_double(handle, index, v)
        case .text(let v): status = sqlite3_bind_text64(handle, index, v, UInt64(v.utf8.count), vpspack_sqlite_transient(), UInt8(SQLITE_UTF8))
        case .blob(let v):
            status = v.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(raw.count), vpspack_sqlite_transient())
            }
        }
        guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
    }

    /// Binds bytes to parameter `index` (1-based) with `sqlite3_bind_blob64`.
    ///
    /// - Parameters:
    ///   - bytes: the blob.
    ///   - index: the parameter, 1-based.
    ///   - copying: true (SQLITE_TRANSIENT) makes SQLite copy the bytes now; false
    ///     (SQLITE_STATIC) saves the copy, and then the bytes must stay valid until
    ///     ``clearBindings()`` or the next ``bind(_:)``.
    public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32, copying: Bool = true) throws(DatabaseError) {
        let status = sqlite3_bind_blob64(
            handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count),
            copying ? vpspack_sqlite_transient() : nil
        )
        guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
    }

    /// Sets every parameter back to NULL (`sqlite3_clear_bindings`).
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement so it can run again with new bindings (`sqlite3_reset`).
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Advances to the next row (`sqlite3_step`).
    ///
    /// - Returns: true when a row is available, false when the statement is done.
    /// - Throws: ``DatabaseError`` with this statement's SQL.
    public func step() throws(DatabaseError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let e = database.error(status, sql: sql)
            sqlite3_reset(handle)
            throw e
        }
    }

    /// Number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The value of column `index` (0-based) of the current row.
    public func value(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, index)))
        case SQLITE_BLOB: return .blob(withBlob(at: index) { Array($0) })
        default: return .null
        }
    }

    /// Column `index` as an integer (0 for NULL).
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as text, nil for NULL.
    public func text(at index: Int32) -> String? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL, let p = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: p)
    }

    /// True when column `index` is NULL.
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Lends the bytes of blob column `index` without copying; valid only inside `body`.
    public func withBlob<T>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
