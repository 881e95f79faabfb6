import Foundation
import PackTransport
import VPSCrypto

/// `vpspack keygen --out KEYFILE`: a new Ed25519 signing key for `publish`.
enum KeygenCommand: Command {
    static let name = "keygen"
    static let summary = "make an Ed25519 signing key for publishing offers"
    static let help = """
        usage: vpspack keygen --out KEYFILE [--json]

        Makes a new Ed25519 key with OpenSSL's random generator and writes it to
        KEYFILE with mode 0600; an existing file is never overwritten. Prints the
        public key (64 hex digits) on stdout: clients pin it with
        `vpspack trust --server S --key PUBKEY`, and `vpspack publish --key KEYFILE`
        signs offers with it. Keep KEYFILE secret; see docs/trust.md.

        options:
          --out KEYFILE   where to write the key (must not exist)
          --json          {"publicKey": ..., "keyID": ..., "keyFile": ...} on stdout
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let out = try arguments.required("--out")
        try arguments.finish()
        let key = try Ed25519PrivateKey()
        let url = URL(fileURLWithPath: out)
        try SigningKeyFile.write(key, to: url)
        if json {
            output.json(["publicKey": key.publicKey.hex, "keyID": key.publicKey.keyID, "keyFile": url.path])
        } else {
            output.out(key.publicKey.hex)
            output.err("wrote the signing key \(url.path) (key id \(key.publicKey.keyID)); clients pin it with: vpspack trust --server S --key \(key.publicKey.hex)")
        }
        return .success
    }
}
