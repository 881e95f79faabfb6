public import Foundation
import PackFormat
import VPSSQLite

/// The pack store: one SQLite database (WAL) holding every installed pack.
///
/// Packs are scoped by (server, tour), one committed version each. File
/// contents are content-addressed by SHA-256 and stored once, in chunks of
/// ``chunkSize`` bytes, however many versions and tours share them. Every
/// change is one `BEGIN IMMEDIATE` transaction: readers in other processes see
/// the old version or the new one, never a mix. docs/store.md has the schema.
///
/// ```swift
/// let store = try PackStore(directory: StoreLocation.resolve(explicit: nil))
/// let result = try store.commit(archive: url, server: "file:///srv/site", tour: "demo")
/// let report = try store.verify(server: "file:///srv/site", tour: "demo")
/// ```
///
/// One instance owns one connection and is used by one thread at a time.
public final class PackStore {
    /// The store directory.
    public let directory: URL
    /// The database file, `store.sqlite` in ``directory``.
    public let databaseURL: URL
    let db: Database

    /// Bytes per content chunk.
    public static let chunkSize = 1 << 20
    /// The schema version this build writes (`PRAGMA user_version`).
    public static let schemaVersion = 1
    /// SQLite page size of new stores: large pages suit megabyte chunks (fewer overflow pages).
    static let pageSize = 65536
    /// The database file name inside the store directory.
    public static let databaseName = "store.sqlite"

    /// Opens the store in `directory`, creating the directory and database when missing and
    /// migrating an older schema.
    ///
    /// Several processes may open one store at once; writers take turns (busy timeout).
    ///
    /// - Throws: ``StoreError`` when the directory cannot be created, the file is not a
    ///   store, or its schema is newer than this build.
    public init(directory: URL) throws(StoreError) {
        self.directory = directory
        databaseURL = directory.appendingPathComponent(Self.databaseName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create the store directory \(directory.path): \(error.localizedDescription)")
        }
        let path = databaseURL.path
        db = try storeErrors { try Database(path: path) }
        try storeErrors {
            // Reading the schema version takes no write lock, so opening a store never waits behind a writer.
            let found = try Self.retryingBusy { Int(try db.scalar("PRAGMA user_version")?.integer ?? 0) }
            if found == 0 {
                // Before the first table exists, these fix the file's layout for good.
                try db.execute("PRAGMA page_size=\(Self.pageSize); PRAGMA auto_vacuum=INCREMENTAL")
            }
            try Self.retryingBusy { try db.setUpWAL() }
            if found != Self.schemaVersion { try migrate() }
        }
    }

    /// The directory where downloads keep their partial files.
    public var downloadsDirectory: URL { directory.appendingPathComponent("downloads") }

    /// Runs `body` again while another process holds a lock SQLite's busy handler does not wait for.
    static func retryingBusy<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.primaryCode == DatabaseError.busy && attempt < 200 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    private func migrate() throws {
        try db.inTransaction(.immediate) {
            let found = Int(try db.scalar("PRAGMA user_version")?.integer ?? 0)
            guard found <= Self.schemaVersion else {
                throw StoreError.newerSchema(found: found, supported: Self.schemaVersion)
            }
            for version in found..<Self.schemaVersion {
                try db.execute(Schema.migrations[version])
            }
            if found != Self.schemaVersion {
                try db.execute("PRAGMA user_version=\(Self.schemaVersion)")
            }
        }
    }

    /// Now, as the store writes timestamps.
    static func timestamp(_ date: Date = Date()) -> String { ISO8601.format(date) }
}

@available(*, unavailable)
extension PackStore: Sendable {}

/// The store's schema, one migration per version step.
enum Schema {
    /// `migrations[n]` takes the schema from version n to n + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE files(
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE,
            length INTEGER NOT NULL
        );
        CREATE TABLE chunks(
            id INTEGER PRIMARY KEY,
            file_id INTEGER NOT NULL REFERENCES files(id),
            seq INTEGER NOT NULL,
            data BLOB NOT NULL,
            UNIQUE(file_id, seq)
        );
        CREATE TABLE packs(
            id INTEGER PRIMARY KEY,
            server TEXT NOT NULL,
            tour TEXT NOT NULL,
            version INTEGER NOT NULL,
            manifest BLOB NOT NULL,
            offer BLOB,
            archive_length INTEGER,
            archive_sha256 TEXT,
            installed_at TEXT NOT NULL,
            verified_at TEXT,
            UNIQUE(server, tour)
        );
        CREATE TABLE pack_files(
            pack_id INTEGER NOT NULL REFERENCES packs(id),
            path TEXT NOT NULL,
            file_id INTEGER NOT NULL REFERENCES files(id),
            PRIMARY KEY(pack_id, path)
        ) WITHOUT ROWID;
        CREATE INDEX pack_files_by_file ON pack_files(file_id);
        CREATE TABLE attachments(
            pack_id INTEGER NOT NULL REFERENCES packs(id),
            name TEXT NOT NULL,
            file_id INTEGER NOT NULL REFERENCES files(id),
            added_at TEXT NOT NULL,
            PRIMARY KEY(pack_id, name)
        ) WITHOUT ROWID;
        CREATE INDEX attachments_by_file ON attachments(file_id);
        CREATE TABLE trusted_keys(
            server TEXT NOT NULL,
            public_key TEXT NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY(server, public_key)
        ) WITHOUT ROWID;
        """,
    ]
}
