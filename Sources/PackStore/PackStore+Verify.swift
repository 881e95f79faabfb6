import Foundation
import PackFormat
import VPSCrypto
import VPSSQLite

/// What verify found for one installed pack.
public struct VerifyReport: Sendable, Equatable {
    public var server: String
    public var tour: String
    public var version: Int
    /// Files checked (pack files and host attachments).
    public var filesChecked: Int
    /// Bytes re-hashed.
    public var bytesChecked: Int64
    /// Every damaged file, by pack path (`map/...`) or `attachment:NAME`.
    public var damaged: [DamagedFile]

    public var isClean: Bool { damaged.isEmpty }
}

/// One damaged file and what is wrong with it.
public struct DamagedFile: Sendable, Equatable {
    public var path: String
    public var problem: String
}

extension PackStore {
    /// Re-hashes every stored file of (server, tour) against its manifest (and host
    /// attachments against their recorded hashes). Records the time when clean.
    ///
    /// - Throws: ``StoreError/notDownloaded(server:tour:)`` when not installed.
    public func verify(server: String, tour: String) throws(StoreError) -> VerifyReport {
        let report = try storeErrors {
            try db.reading { try verifyInTransaction(server: server, tour: tour) }
        }
        if report.isClean {
            // Recording the time is optional: never wait for a commit in another process to finish.
            try? db.withBusyTimeout(100) { () throws(DatabaseError) in try db.run(
                "UPDATE packs SET verified_at = ? WHERE server = ? AND tour = ? AND version = ?",
                [.text(Self.timestamp()), .text(server), .text(tour), .integer(Int64(report.version))]
            ) }
        }
        return report
    }

    /// `PRAGMA integrity_check` over the whole database: empty when sound.
    /// A database too damaged to run the check reports that as its one finding.
    public func integrityCheck() throws(StoreError) -> [String] {
        do {
            return try db.integrityCheck()
        } catch where error.primaryCode == DatabaseError.corrupt || error.primaryCode == DatabaseError.notADatabase {
            return ["the check itself failed: \(error.message)"]
        } catch {
            throw .database(error)
        }
    }

    private func verifyInTransaction(server: String, tour: String) throws -> VerifyReport {
        let rows = try db.rows("SELECT id, version, manifest FROM packs WHERE server = ? AND tour = ?", [.text(server), .text(tour)])
        guard let row = rows.first, let packID = row[0].integer else { throw StoreError.notDownloaded(server: server, tour: tour) }
        var report = VerifyReport(server: server, tour: tour, version: Int(row[1].integer ?? 0), filesChecked: 0, bytesChecked: 0, damaged: [])
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(Data(row[2].blob ?? []))
        } catch {
            report.damaged.append(DamagedFile(path: Manifest.entryName, problem: error.description))
            return report
        }
        var stored: [String: (id: Int64, sha256: String, length: Int64)] = [:]
        for r in try db.rows(
            "SELECT p.path, f.id, f.sha256, f.length FROM pack_files p JOIN files f ON f.id = p.file_id WHERE p.pack_id = ?", [.integer(packID)]
        ) {
            stored[r[0].text ?? ""] = (r[1].integer ?? 0, r[2].text ?? "", r[3].integer ?? 0)
        }
        let chunks = try db.prepare(Self.chunksOfFile)
        func check(_ name: String, fileID: Int64, length: Int64, sha256: String) throws {
            var hasher = SHA256()
            let actual: Int64
            let contiguous: Bool
            do {
                (actual, contiguous) = try readContent(fileID: fileID, statement: chunks) { hasher.update($0) }
            } catch let error as DatabaseError where error.primaryCode == DatabaseError.corrupt {
                // The pages holding this file are damaged beyond reading: name the file, go on with the others.
                report.filesChecked += 1
                report.damaged.append(DamagedFile(path: name, problem: "its stored pages cannot be read (\(error.message))"))
                return
            }
            let digest = hasher.finalize().hex
            report.filesChecked += 1
            report.bytesChecked += actual
            if !contiguous {
                report.damaged.append(DamagedFile(path: name, problem: "its chunk sequence has gaps"))
            } else if actual != length {
                report.damaged.append(DamagedFile(path: name, problem: "it is \(actual) bytes, expected \(length)"))
            } else if digest != sha256.lowercased() {
                report.damaged.append(DamagedFile(path: name, problem: "its SHA-256 is \(digest), expected \(sha256.lowercased())"))
            }
        }
        for file in manifest.files {
            guard let entry = stored.removeValue(forKey: file.path) else {
                report.damaged.append(DamagedFile(path: file.path, problem: "it is missing from the store"))
                continue
            }
            if entry.sha256 != file.sha256.lowercased() || entry.length != file.length {
                report.damaged.append(DamagedFile(path: file.path, problem: "the store's record of it differs from the manifest"))
                continue
            }
            try check(file.path, fileID: entry.id, length: file.length, sha256: file.sha256)
        }
        for extra in stored.keys.sorted() {
            report.damaged.append(DamagedFile(path: extra, problem: "it is stored but not listed in the manifest"))
        }
        for a in try db.rows(
            "SELECT a.name, f.id, f.sha256, f.length FROM attachments a JOIN files f ON f.id = a.file_id WHERE a.pack_id = ? ORDER BY a.name",
            [.integer(packID)]
        ) {
            try check("attachment:" + (a[0].text ?? ""), fileID: a[1].integer ?? 0, length: a[3].integer ?? 0, sha256: a[2].text ?? "")
        }
        return report
    }
}
