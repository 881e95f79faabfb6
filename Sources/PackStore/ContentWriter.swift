import Foundation
import PackFormat
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
        // No copy: the bytes stay valid for the whole step, and are unbound right after.
        try addChunk.bindBlob(bytes, at: 3, copying: false)
        defer { addChunk.clearBindings() }
        while try addChunk.step() {}
        sequence += 1
    }

    func endFile() {
        sequence = 0
    }

    /// Stores a file from disk (hashing it first, so identical content is shared) and returns its id.
    func store(file url: URL, limit: Int64) throws -> Int64 {
        let input = try FileBlockReader(path: url.path, blockSize: PackStore.chunkSize)
        var hasher = SHA256()
        var length: Int64 = 0
        while let block = try input.next() {
            hasher.update(block)
            length += Int64(block.count)
            guard length <= limit else { throw StoreError.io("attachment \(url.path) is larger than \(limit) bytes") }
        }
        let digest = hasher.finalize().hex
        if let id = try existingFile(sha256: digest) { return id }
        let id = try insertFile(sha256: digest, length: length)
        try input.seek(to: 0)
        var check = SHA256()
        var copied: Int64 = 0
        // Chunks are exactly chunkSize bytes but the last: gather short reads into one buffer.
        var pending = [UInt8]()
        pending.reserveCapacity(PackStore.chunkSize)
        while let block = try input.next(maximum: PackStore.chunkSize - pending.count) {
            check.update(block)
            copied += Int64(block.count)
            pending.append(contentsOf: block)
            if pending.count == PackStore.chunkSize {
                try pending.withUnsafeBytes { try appendChunk(fileID: id, bytes: $0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !pending.isEmpty { try pending.withUnsafeBytes { try appendChunk(fileID: id, bytes: $0) } }
        guard copied == length, check.finalize().hex == digest else {
            throw StoreError.io("attachment \(url.path) changed while it was being stored")
        }
        endFile()
        return id
    }
}
