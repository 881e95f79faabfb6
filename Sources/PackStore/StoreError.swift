public import PackFormat
public import VPSSQLite

/// Why a store operation failed.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No pack is installed for (server, tour).
    case notDownloaded(server: String, tour: String)
    /// The archive was refused; nothing was changed.
    case format(PackFormatError)
    /// The offer was refused (rollback found inside the commit transaction).
    case offer(OfferError)
    /// The archive does not match what was asked for (another tour, another version than the offer).
    case mismatch(String)
    /// SQLite failed; the message names the database file and the statement.
    case database(DatabaseError)
    /// A file outside the database could not be read or written.
    case io(String)
    /// The store was written by a newer vpspack with a schema this build does not know.
    case newerSchema(found: Int, supported: Int)
    /// The store location could not be worked out.
    case location(String)
    /// An attachment name that is not a plain file name.
    case invalidAttachmentName(String)
    /// The pack has no attachment of that name.
    case noSuchAttachment(name: String, server: String, tour: String)

    public var description: String {
        switch self {
        case .notDownloaded(let server, let tour):
            return "tour '\(tour)' from \(server) is not downloaded; run `vpspack download --server \(server) --tour \(tour)` first"
        case .format(let e): return e.description
        case .offer(let e): return e.description
        case .mismatch(let why): return why
        case .database(let e): return e.description
        case .io(let why): return why
        case .newerSchema(let found, let supported):
            return "the store's schema version is \(found), newer than the \(supported) this vpspack knows; upgrade vpspack"
        case .location(let why): return why
        case .invalidAttachmentName(let name):
            return "attachment name '\(name)' is not a plain file name (1-255 bytes, no '/', not starting with '.')"
        case .noSuchAttachment(let name, let server, let tour):
            return "tour '\(tour)' from \(server) has no attachment named '\(name)'"
        }
    }
}

extension StoreError {
    init(_ error: any Error) {
        switch error {
        case let e as StoreError: self = e
        case let e as DatabaseError: self = .database(e)
        case let e as PackFormatError: self = .format(e)
        case let e as OfferError: self = .offer(e)
        default: self = .io(String(describing: error))
        }
    }
}

/// Runs `body`, turning any error into a ``StoreError``.
func storeErrors<T>(_ body: () throws -> T) throws(StoreError) -> T {
    do { return try body() } catch { throw StoreError(error) }
}
