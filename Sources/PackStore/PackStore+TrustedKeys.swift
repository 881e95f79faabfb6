public import Foundation
public import VPSCrypto
import PackFormat
import VPSSQLite

/// A public key pinned for a server.
public struct TrustedKey: Sendable, Equatable {
    public var server: String
    public var key: Ed25519PublicKey
    public var addedAt: Date
}

extension PackStore {
    /// Pins `key` for `server`; several keys per server are allowed (rotation).
    ///
    /// - Returns: false when the key was already pinned for that server.
    @discardableResult
    public func trust(_ key: Ed25519PublicKey, server: String) throws(StoreError) -> Bool {
        try storeErrors {
            try db.inTransaction(.immediate) {
                try db.run("INSERT OR IGNORE INTO trusted_keys(server, public_key, added_at) VALUES (?, ?, ?)",
                           [.text(server), .text(key.hex), .text(Self.timestamp())])
                return db.changes > 0
            }
        }
    }

    /// Unpins `key` for `server`.
    ///
    /// - Returns: false when the key was not pinned for that server.
    @discardableResult
    public func revoke(_ key: Ed25519PublicKey, server: String) throws(StoreError) -> Bool {
        try storeErrors {
            try db.inTransaction(.immediate) {
                try db.run("DELETE FROM trusted_keys WHERE server = ? AND public_key = ?", [.text(server), .text(key.hex)])
                return db.changes > 0
            }
        }
    }

    /// The keys pinned for `server`, oldest first.
    public func trustedKeys(server: String) throws(StoreError) -> [Ed25519PublicKey] {
        try trustedKeys().filter { $0.server == server }.map(\.key)
    }

    /// Every pinned key, by server then time added.
    public func trustedKeys() throws(StoreError) -> [TrustedKey] {
        try storeErrors {
            try db.rows("SELECT server, public_key, added_at FROM trusted_keys ORDER BY server, added_at, public_key").compactMap { row in
                guard let bytes = row[1].text.flatMap(Hex.decode), let key = try? Ed25519PublicKey(rawRepresentation: bytes) else { return nil }
                return TrustedKey(server: row[0].text ?? "", key: key, addedAt: row[2].text.flatMap(ISO8601.parse) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }
}
