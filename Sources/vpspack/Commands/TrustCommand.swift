import Foundation
import PackFormat
import PackStore
import PackTransport
import VPSCrypto

/// `vpspack trust`: pin, revoke and list the keys whose offers a server's packs must carry.
enum TrustCommand: Command {
    static let name = "trust"
    static let summary = "pin, revoke or list the signing keys trusted for a server"
    static let help = """
        usage: vpspack trust --server S --key PUBKEY [--store DIR] [--json]
               vpspack trust --server S --revoke PUBKEY [--store DIR] [--json]
               vpspack trust --list [--server S] [--store DIR] [--json]

        Pins a producer's Ed25519 public key (64 hex digits, as `vpspack keygen` prints it)
        for a server: `download` then accepts only offers signed by a key pinned for that
        server. Several keys per server are allowed, for rotation: pin the new key, then
        revoke the old one. Revoking a key that is not pinned exits 1. See docs/trust.md.

        options:
          --server S       the server (a directory, file://, http:// or https:// URL)
          --key PUBKEY     pin this key
          --revoke PUBKEY  unpin this key
          --list           list pinned keys (of one server with --server)
          --store DIR      the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json           one JSON object on stdout
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let list = arguments.flag("--list")
        let serverText = try arguments.option("--server")
        let pin = try arguments.option("--key")
        let revoke = try arguments.option("--revoke")
        try arguments.finish()
        var server: ServerLocation?
        if let text = serverText {
            do { server = try ServerLocation.parse(text) } catch { throw UsageError("--server \(text): \(error.description)") }
        }
        let actions = [list, pin != nil, revoke != nil].filter { $0 }.count
        guard actions == 1 else { throw UsageError("give exactly one of --key, --revoke and --list") }

        if list {
            let store = try StoreSupport.open(common)
            let keys = try store.trustedKeys().filter { server == nil || $0.server == server?.identity }
            if common.json {
                output.json(["keys": keys.map {
                    ["server": $0.server, "publicKey": $0.key.hex, "keyID": $0.key.keyID, "addedAt": ISO8601.format($0.addedAt)] as [String: Any]
                }])
            } else if keys.isEmpty {
                output.out(server.map { "no key is pinned for \($0.identity)" } ?? "no key is pinned")
            } else {
                for key in keys {
                    output.out("\(key.server)  \(key.key.keyID)  \(key.key.hex)  pinned \(ISO8601.format(key.addedAt))")
                }
            }
            return .success
        }

        guard let server else { throw UsageError("--\(pin != nil ? "key" : "revoke") needs --server") }
        let text = pin ?? revoke ?? ""
        guard let key = Ed25519PublicKey(hex: text) else {
            throw UsageError("--\(pin != nil ? "key" : "revoke") \(text): expected an Ed25519 public key as 64 hex digits")
        }
        let store = try StoreSupport.open(common)
        if pin != nil {
            let added = try store.trust(key, server: server.identity)
            if common.json {
                output.json(["server": server.identity, "publicKey": key.hex, "keyID": key.keyID, "status": added ? "pinned" : "already-pinned"])
            } else {
                output.out(added ? "pinned key \(key.keyID) for \(server.identity)" : "key \(key.keyID) was already pinned for \(server.identity)")
            }
            return .success
        }
        let removed = try store.revoke(key, server: server.identity)
        if common.json {
            output.json(["server": server.identity, "publicKey": key.hex, "keyID": key.keyID, "status": removed ? "revoked" : "not-pinned"])
        } else if removed {
            output.out("revoked key \(key.keyID) for \(server.identity)")
        } else {
            output.err("vpspack trust: key \(key.keyID) is not pinned for \(server.identity); nothing was revoked")
        }
        return removed ? .success : .checkFailed
    }
}
