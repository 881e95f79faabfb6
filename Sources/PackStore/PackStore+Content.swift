public import Foundation
public import PackFormat
import VPSCrypto
import VPSSQLite

extension PackStore {
    /// Streams the content of stored file `fileID` in chunk order into `sink`.
    ///
    /// - Returns: the number of bytes and whether the chunk sequence was unbroken (0, 1, 2, ...).
    func readContent(fileID: Int64, statement: Statement, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> (length: Int64, contiguous: Bool) {
        try statement.bind([.integer(fileID)])
        defer { statement.reset() }
        var expected: Int64 = 0
        var length: Int64 = 0
        var contiguous = true
        while try statement.step() {
            if statement.int64(at: 0) != expected { contiguous = false }
            expected += 1
            try statement.withBlob(at: 1) { bytes in
                length += Int64(bytes.count)
                try sink(bytes)
            }
        }
        return (length, contiguous)
    }

    static let chunksOfFile = "SELECT seq, data FROM chunks WHERE file_id = ? ORDER BY seq"

    /// The bytes of host attachment `name` of (server, tour).
    ///
    /// - Throws: ``StoreError/notDownloaded(server:tour:)``, ``StoreError/noSuchAttachment(name:server:tour:)``.
    public func attachment(named name: String, server: String, tour: String) throws(StoreError) -> Data {
        try storeErrors {
            try db.reading {
                guard let pack = try installedRow(server: server, tour: tour) else {
                    throw StoreError.notDownloaded(server: server, tour: tour)
                }
                let rows = try db.rows("SELECT file_id FROM attachments WHERE pack_id = ? AND name = ?", [.integer(pack.id), .text(name)])
                guard let fileID = rows.first?[0].integer else {
                    throw StoreError.noSuchAttachment(name: name, server: server, tour: tour)
                }
                var data = Data()
                _ = try readContent(fileID: fileID, statement: db.prepare(Self.chunksOfFile)) { data.append(contentsOf: $0) }
                return data
            }
        }
    }

    /// Opens the installed pack (server, tour) for reading, as one consistent version.
    ///
    /// The returned pack holds its own connection and a read transaction for its
    /// whole life, so a commit in another process cannot change what it reads.
    ///
    /// - Throws: ``StoreError/notDownloaded(server:tour:)`` when not installed.
    public func openPack(server: String, tour: String) throws(StoreError) -> InstalledPack {
        try InstalledPack(databasePath: databaseURL.path, server: server, tour: tour)
    }
}

/// An installed pack read from the store: ``PackContents`` for packs in SQLite.
///
/// Holds a read transaction (a WAL snapshot) from opening until it is dropped:
/// every ``data(at:)`` sees the version that was installed when it was opened.
public final class InstalledPack: PackContents {
    public let server: String
    public let tour: String
    public let manifest: Manifest
    private let db: Database
    private var files: [String: Int64] = [:]
    private let chunks: Statement

    init(databasePath: String, server: String, tour: String) throws(StoreError) {
        self.server = server
        self.tour = tour
        let db = try storeErrors { try Database(path: databasePath, create: false) }
        self.db = db
        do {
            try db.execute("BEGIN DEFERRED")
            let rows = try db.rows("SELECT id, manifest FROM packs WHERE server = ? AND tour = ?", [.text(server), .text(tour)])
            guard let row = rows.first, let id = row[0].integer else {
                try? db.execute("ROLLBACK")
                throw StoreError.notDownloaded(server: server, tour: tour)
            }
            manifest = try Manifest.decode(Data(row[1].blob ?? []))
            for file in try db.rows("SELECT path, file_id FROM pack_files WHERE pack_id = ?", [.integer(id)]) {
                if let path = file[0].text, let fileID = file[1].integer { files[path] = fileID }
            }
            chunks = try db.prepare(PackStore.chunksOfFile)
        } catch {
            throw StoreError(error)
        }
    }

    deinit {
        try? db.execute("ROLLBACK")
    }

    /// The content of `path`, checked against the manifest's length and SHA-256 as it is read.
    public func data(at path: String) throws -> Data {
        guard let file = manifest.file(at: path), let fileID = files[path] else { throw PackFormatError.noSuchFile(path) }
        var data = Data()
        data.reserveCapacity(Int(file.length))
        var hasher = SHA256()
        try chunks.bind([.integer(fileID)])
        defer { chunks.reset() }
        while try chunks.step() {
            chunks.withBlob(at: 1) { bytes in
                hasher.update(bytes)
                data.append(contentsOf: bytes)
            }
        }
        let digest = hasher.finalize().hex
        guard Int64(data.count) == file.length, digest == file.sha256 else {
            throw StoreError.format(.hashMismatch(path, expected: file.sha256, actual: digest))
        }
        return data
    }
}

@available(*, unavailable)
extension InstalledPack: Sendable {}
