import Foundation
import VPSCrypto
import VPSSQLite

/// Writes file contents as chunks, with statements prepared once per commit.
final class ContentWriter {
    private let db: Database
    private let findFile: Statement
    private let addFile: Statement
    private let addChunk: Statement
    private var sequence: Int64 = 0

    init(db: Database) throws {
        self.db = db
        findFile = try db.prepare("SELECT id FROM files WHERE sha256 = ?")
        addFile = try db.prepare("INSERT INTO files(sha256, length) VALUES (?, ?)")
        addChunk = try db.prepare("INSERT INTO chunks(file_id, seq, data) VALUES (?, ?, ?)")
    }

    func existingFile(sha256: String) throws -> Int64? {
        try findFile.bind([.text(sha256.lowercased())])
        defer { findFile.reset() }
        return try findFile.step() ? findFile.int64(at: 0) : nil
    }

    func insertFile(sha256: String, length: Int64) throws -> Int64 {
        try addFile.bind([.text(sha256.lowercased()), .integer(length)])
        while try addFile.step() {}
        sequence = 0
        return db.lastInsertRowID
    }

    func appendChunk(fileID: Int64, bytes: UnsafeRawBufferPointer) throws {
        try addChunk.bind([.integer(fileID), .integer(sequence)])
        try addChunk.bindBlob(bytes, at: 3)
        while try addChunk.step() {}
        sequence += 1
    }

    func endFile() {
        sequence = 0
    }

    /// Stores a file from disk (hashing it first, so identical content is shared) and returns its id.
    func store(file url: URL, limit: Int64) throws -> Int64 {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw StoreError.io("cannot read attachment \(url.path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        var length: Int64 = 0
        while let chunk = try handle.read(upToCount: PackStore.chunkSize), !chunk.isEmpty {
            hasher.update(chunk)
            length += Int64(chunk.count)
            guard length <= limit else { throw StoreError.io("attachment \(url.path) is larger than \(limit) bytes") }
        }
        let digest = hasher.finalize().hex
        if let id = try existingFile(sha256: digest) { return id }
        let id = try insertFile(sha256: digest, length: length)
        try handle.seek(toOffset: 0)
        var check = SHA256()
        var copied: Int64 = 0
        while let chunk = try handle.read(upToCount: PackStore.chunkSize), !chunk.isEmpty {
            check.update(chunk)
            copied += Int64(chunk.count)
            try chunk.withUnsafeBytes { try appendChunk(fileID: id, bytes: $0) }
        }
        guard copied == length, check.finalize().hex == digest else {
            throw StoreError.io("attachment \(url.path) changed while it was being stored")
        }
        endFile()
        return id
    }
}
