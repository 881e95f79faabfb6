public import Foundation
public import PackFormat
import VPSCrypto
import VPSSQLite

/// A host attachment to commit with a pack: a name and the file holding its bytes.
public struct HostAttachment: Sendable, Equatable {
    public var name: String
    public var file: URL

    public init(name: String, file: URL) {
        self.name = name
        self.file = file
    }

    /// Checks an attachment name: 1-255 bytes, no `/` or `\`, no control characters, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        (1...255).contains(name.utf8.count) && !name.hasPrefix(".")
            && !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
    }
}

/// The offer a download accepted, stored with the pack it describes.
public struct AcceptedOffer: Sendable, Equatable {
    /// offer.json exactly as fetched (the DSSE envelope).
    public var envelope: Data
    /// Its verified payload.
    public var offer: Offer
    /// Lets a lower version replace the installed one: the offer policy's fast-forward recovery,
    /// when every key that signed the installed offer has been revoked (docs/trust.md).
    public var liftsVersionFloor: Bool

    public init(envelope: Data, offer: Offer, liftsVersionFloor: Bool = false) {
        self.envelope = envelope
        self.offer = offer
        self.liftsVersionFloor = liftsVersionFloor
    }
}

/// What a commit did.
public struct CommitResult: Sendable, Equatable {
    public var server: String
    public var tour: String
    public var version: Int
    /// The version that was installed before, if any.
    public var previousVersion: Int?
    /// Files whose content was already in the store (shared with another version or tour).
    public var sharedFiles: Int
    /// Files whose content was written.
    public var newFiles: Int
}

extension PackStore {
    /// Validates the archive at `archive` and installs it as (server, tour) in one transaction.
    ///
    /// Streams the archive through ``PackArchiveReader`` (every rule of
    /// docs/pack-format.md, every file hashed against the manifest) while writing
    /// the content into SQLite, adds the host attachments, switches the
    /// (server, tour) row to the new version, stores the accepted offer, and drops
    /// content nothing references any more; all inside one `BEGIN IMMEDIATE`
    /// transaction. Any failure rolls back, leaving the previous version installed.
    /// Afterwards free pages are given back to the file system.
    ///
    /// - Parameters:
    ///   - archive: the `.vpspack` file (a complete partial download, or a local file).
    ///   - server: the server identity (``ServerLocation/identity`` in PackTransport).
    ///   - tour: the tour asked for; the manifest must name the same.
    ///   - offer: the accepted offer; the manifest's version must equal the offer's. Nil for sideloads.
    ///   - archiveDigest: the archive's length and SHA-256, when the caller measured them.
    ///   - attachments: host attachments, replacing earlier ones of the same name.
    ///   - limits: the caps for reading the archive.
    /// - Throws: ``StoreError``; the store is unchanged.
    @discardableResult
    public func commit(
        archive: URL, server: String, tour: String, offer: AcceptedOffer? = nil,
        archiveDigest: (length: Int64, sha256: String)? = nil,
        attachments: [HostAttachment] = [], limits: ArchiveLimits = .standard
    ) throws(StoreError) -> CommitResult {
        for attachment in attachments where !HostAttachment.isValidName(attachment.name) {
            throw .invalidAttachmentName(attachment.name)
        }
        if let duplicate = Dictionary(grouping: attachments, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw .mismatch("attachment '\(duplicate)' was given twice")
        }
        let reader: PackArchiveReader
        do { reader = try PackArchiveReader(path: archive.path, limits: limits) } catch { throw .format(error) }
        let manifest = reader.manifest
        guard manifest.tour == tour else {
            throw .mismatch("the archive is a pack of tour '\(manifest.tour)', not of tour '\(tour)' as asked")
        }
        if let offer {
            do {
                try OfferPolicy.checkManifest(offer.offer, tour: manifest.tour, version: manifest.version, format: manifest.format)
            } catch {
                throw .offer(error)
            }
        }
        let result = try storeErrors {
            try db.inTransaction(.immediate) {
                CrashPoint.commitBegun.reach()
                return try commitInTransaction(
                    reader: reader, server: server, tour: tour, offer: offer, archiveDigest: archiveDigest, attachments: attachments
                )
            }
        }
        CrashPoint.commitDone.reach()
        // Give the old version's pages back; failure here loses no data, so it is not an error.
        try? db.incrementalVacuum()
        return result
    }

    private func commitInTransaction(
        reader: PackArchiveReader, server: String, tour: String, offer: AcceptedOffer?,
        archiveDigest: (length: Int64, sha256: String)?, attachments: [HostAttachment]
    ) throws -> CommitResult {
        let manifest = reader.manifest
        let old = try installedRow(server: server, tour: tour)
        if let old, old.version > manifest.version, offer?.liftsVersionFloor != true {
            throw StoreError.offer(.rollback(offered: manifest.version, installed: old.version))
        }
        let writer = try ContentWriter(db: db)
        var fileIDs: [(path: String, id: Int64)] = []
        var current: (path: String, id: Int64?)?
        var shared = 0
        var written = 0
        var firstChunk = true
        try reader.readFiles(
            blockSize: Self.chunkSize,
            onBlock: { file, bytes in
                if current?.path != file.path {
                    let existing = try writer.existingFile(sha256: file.sha256)
                    current = (file.path, existing == nil ? try writer.insertFile(sha256: file.sha256, length: file.length) : nil)
                    if let existing { fileIDs.append((file.path, existing)) }
                }
                if let id = current?.id {
                    try writer.appendChunk(fileID: id, bytes: bytes)
                    if firstChunk { firstChunk = false; CrashPoint.commitMidContent.reach() }
                }
            },
            onFileEnd: { file in
                if current?.path != file.path {
                    // An empty file: no blocks came.
                    let existing = try writer.existingFile(sha256: file.sha256)
                    current = (file.path, existing == nil ? try writer.insertFile(sha256: file.sha256, length: file.length) : nil)
                    if let existing { fileIDs.append((file.path, existing)) }
                }
                if let id = current?.id {
                    fileIDs.append((file.path, id))
                    written += 1
                } else {
                    shared += 1
                }
                writer.endFile()
                current = nil
            }
        )
        CrashPoint.commitContentWritten.reach()

        var attachmentIDs: [(name: String, id: Int64)] = []
        for attachment in attachments {
            attachmentIDs.append((attachment.name, try writer.store(file: attachment.file, limit: reader.limits.maximumEntryLength)))
        }

        // Switch the (server, tour) row to the new version; its attachments stay unless replaced.
        let now = Self.timestamp()
        let columns: [DatabaseValue] = [
            .integer(Int64(manifest.version)), .blob(Array(reader.manifestData)),
            offer.map { .blob(Array($0.envelope)) } ?? .null,
            archiveDigest.map { .integer($0.length) } ?? .null, archiveDigest.map { .text($0.sha256) } ?? .null, .text(now),
        ]
        let packID: Int64
        if let old {
            packID = old.id
            try db.run(
                "UPDATE packs SET version = ?, manifest = ?, offer = ?, archive_length = ?, archive_sha256 = ?, installed_at = ?, verified_at = NULL WHERE id = ?",
                columns + [.integer(packID)]
            )
            try db.run("DELETE FROM pack_files WHERE pack_id = ?", [.integer(packID)])
        } else {
            try db.run(
                "INSERT INTO packs(version, manifest, offer, archive_length, archive_sha256, installed_at, server, tour) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                columns + [.text(server), .text(tour)]
            )
            packID = db.lastInsertRowID
        }
        let insertFile = try db.prepare("INSERT INTO pack_files(pack_id, path, file_id) VALUES (?, ?, ?)")
        for (path, id) in fileIDs {
            try insertFile.bind([.integer(packID), .text(path), .integer(id)])
            while try insertFile.step() {}
        }
        for (name, id) in attachmentIDs {
            try db.run("INSERT OR REPLACE INTO attachments(pack_id, name, file_id, added_at) VALUES (?, ?, ?, ?)",
                       [.integer(packID), .text(name), .integer(id), .text(now)])
        }
        CrashPoint.commitSwitched.reach()
        try dropUnreferencedContent()
        CrashPoint.commitBeforeCommit.reach()
        return CommitResult(server: server, tour: tour, version: manifest.version, previousVersion: old?.version, sharedFiles: shared, newFiles: written)
    }

    /// Deletes files (and their chunks) that no pack and no attachment references.
    func dropUnreferencedContent() throws {
        let orphans = "SELECT id FROM files WHERE id NOT IN (SELECT file_id FROM pack_files) AND id NOT IN (SELECT file_id FROM attachments)"
        try db.run("DELETE FROM chunks WHERE file_id IN (\(orphans))")
        try db.run("DELETE FROM files WHERE id IN (\(orphans))")
    }

    /// The packs row of (server, tour), if installed.
    func installedRow(server: String, tour: String) throws -> (id: Int64, version: Int)? {
        let rows = try db.rows("SELECT id, version FROM packs WHERE server = ? AND tour = ?", [.text(server), .text(tour)])
        guard let row = rows.first, let id = row[0].integer, let version = row[1].integer else { return nil }
        return (id, Int(version))
    }
}
