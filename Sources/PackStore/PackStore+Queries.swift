public import Foundation
public import PackFormat
import VPSSQLite

/// One installed pack as `list` and `inspect` show it.
public struct InstalledPackInfo: Sendable, Equatable {
    public var server: String
    public var tour: String
    public var version: Int
    public var manifest: Manifest
    /// The accepted offer envelope (offer.json as fetched), nil for sideloaded archives.
    public var offerEnvelope: Data?
    /// The archive's length and SHA-256 as downloaded, when known.
    public var archiveLength: Int64?
    public var archiveSHA256: String?
    public var installedAt: Date
    /// When verify last found the pack intact; nil when never, or since the last commit.
    public var lastVerified: Date?
    public var attachments: [AttachmentInfo]

    /// The bytes of the pack's files plus its host attachments.
    public var size: Int64 { manifest.totalLength + attachments.reduce(0) { $0 + $1.length } }
}

/// A host attachment of an installed pack.
public struct AttachmentInfo: Sendable, Equatable {
    public var name: String
    public var length: Int64
    public var sha256: String
    public var addedAt: Date
}

extension PackStore {
    /// Every installed pack, sorted by server then tour.
    public func list() throws(StoreError) -> [InstalledPackInfo] {
        try storeErrors {
            try db.reading {
                let rows = try db.rows("SELECT server, tour FROM packs ORDER BY server, tour")
                return try rows.map { row in try info(server: row[0].text ?? "", tour: row[1].text ?? "") }
            }
        }
    }

    /// The installed pack (server, tour).
    ///
    /// - Throws: ``StoreError/notDownloaded(server:tour:)`` when it is not installed.
    public func info(server: String, tour: String) throws(StoreError) -> InstalledPackInfo {
        try storeErrors { try infoRow(server: server, tour: tour) }
    }

    /// True when (server, tour) is installed.
    public func isInstalled(server: String, tour: String) throws(StoreError) -> Bool {
        try storeErrors { try installedRow(server: server, tour: tour) != nil }
    }

    /// The installed version of (server, tour), if any.
    public func installedVersion(server: String, tour: String) throws(StoreError) -> Int? {
        try storeErrors { try installedRow(server: server, tour: tour)?.version }
    }

    func infoRow(server: String, tour: String) throws -> InstalledPackInfo {
        let rows = try db.rows(
            "SELECT id, version, manifest, offer, archive_length, archive_sha256, installed_at, verified_at FROM packs WHERE server = ? AND tour = ?",
            [.text(server), .text(tour)]
        )
        guard let row = rows.first, let id = row[0].integer else { throw StoreError.notDownloaded(server: server, tour: tour) }
        let manifest = try Manifest.decode(Data(row[2].blob ?? []))
        let attachments = try db.rows(
            "SELECT a.name, f.length, f.sha256, a.added_at FROM attachments a JOIN files f ON f.id = a.file_id WHERE a.pack_id = ? ORDER BY a.name",
            [.integer(id)]
        ).map { a in
            AttachmentInfo(
                name: a[0].text ?? "", length: a[1].integer ?? 0, sha256: a[2].text ?? "",
                addedAt: a[3].text.flatMap(ISO8601.parse) ?? Date(timeIntervalSince1970: 0)
            )
        }
        return InstalledPackInfo(
            server: server, tour: tour, version: Int(row[1].integer ?? 0), manifest: manifest,
            offerEnvelope: row[3].blob.map { Data($0) }, archiveLength: row[4].integer, archiveSHA256: row[5].text,
            installedAt: row[6].text.flatMap(ISO8601.parse) ?? Date(timeIntervalSince1970: 0),
            lastVerified: row[7].text.flatMap(ISO8601.parse), attachments: attachments
        )
    }

    /// The bytes of the store's files on disk: the database, its WAL and shared-memory files.
    public func diskUsage() -> Int64 {
        [Self.databaseName, Self.databaseName + "-wal", Self.databaseName + "-shm"].reduce(0) { sum, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return sum + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
