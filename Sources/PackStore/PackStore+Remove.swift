import Foundation
import VPSSQLite

extension PackStore {
    /// Removes the pack (server, tour) with its attachments, drops content nothing else
    /// references, and gives the freed pages back to the file system.
    ///
    /// - Returns: the version that was removed.
    /// - Throws: ``StoreError/notDownloaded(server:tour:)`` when it is not installed.
    @discardableResult
    public func remove(server: String, tour: String) throws(StoreError) -> Int {
        let version = try storeErrors {
            try db.inTransaction(.immediate) { () throws -> Int in
                guard let pack = try installedRow(server: server, tour: tour) else {
                    throw StoreError.notDownloaded(server: server, tour: tour)
                }
                try deletePack(id: pack.id)
                try dropUnreferencedContent()
                CrashPoint.removeBeforeCommit.reach()
                return pack.version
            }
        }
        try storeErrors { try db.incrementalVacuum() }
        return version
    }

    /// Removes every installed pack.
    ///
    /// - Returns: the (server, tour, version) of each removed pack.
    @discardableResult
    public func removeAll() throws(StoreError) -> [(server: String, tour: String, version: Int)] {
        let removed = try storeErrors {
            try db.inTransaction(.immediate) { () throws -> [(server: String, tour: String, version: Int)] in
                let rows = try db.rows("SELECT id, server, tour, version FROM packs ORDER BY server, tour")
                for row in rows { try deletePack(id: row[0].integer ?? 0) }
                try dropUnreferencedContent()
                CrashPoint.removeBeforeCommit.reach()
                return rows.map { ($0[1].text ?? "", $0[2].text ?? "", Int($0[3].integer ?? 0)) }
            }
        }
        try storeErrors { try db.incrementalVacuum() }
        return removed
    }

    private func deletePack(id: Int64) throws {
        try db.run("DELETE FROM pack_files WHERE pack_id = ?", [.integer(id)])
        try db.run("DELETE FROM attachments WHERE pack_id = ?", [.integer(id)])
        try db.run("DELETE FROM packs WHERE id = ?", [.integer(id)])
    }
}
