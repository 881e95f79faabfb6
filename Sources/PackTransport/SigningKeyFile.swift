public import Foundation
public import VPSCrypto
#if canImport(Glibc)
import Glibc
#endif

/// Why publishing, or handling a signing key file, failed.
public struct PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Reading or writing a file failed (exit 74).
        case io
        /// A file holds something wrong: a malformed key file, an archive that cannot be published (exit 65).
        case data
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// An Ed25519 signing key on disk, as `vpspack keygen` writes it and `vpspack publish` reads it.
///
/// The file is a small JSON object, mode 0600:
///
/// ```json
/// {"format":"vpspack-ed25519-key","keyid":"3f2a...","public":"9c1e...","seed":"b7d0..."}
/// ```
///
/// `seed` is the 32-byte private seed in hex; `public` and `keyid` are derived from it
/// and checked on load, so a damaged or hand-edited file is caught before it signs.
public enum SigningKeyFile {
    public static let format = "vpspack-ed25519-key"

    private struct Contents: Codable {
        var format: String
        var keyid: String
        var `public`: String
        var seed: String
    }

    /// Writes `key` to a new file with mode 0600; never overwrites an existing file.
    ///
    /// - Throws: ``PublishError`` when the file exists or cannot be written.
    public static func write(_ key: Ed25519PrivateKey, to url: URL) throws(PublishError) {
        let contents = Contents(format: format, keyid: key.publicKey.keyID, public: key.publicKey.hex, seed: Hex.encode(key.rawRepresentation))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard var data = try? encoder.encode(contents) else { throw PublishError(.io, "cannot encode the key file") }
        data.append(0x0a)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "it already exists; refusing to overwrite a key" : String(cString: strerror(errno))
            throw PublishError(.io, "cannot create the key file \(url.path): \(reason)")
        }
        defer { close(fd) }
        // The mode given to open() is masked by the umask; make sure it is exactly 0600.
        fchmod(fd, 0o600)
        let written = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        guard written, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(url.path)
            throw PublishError(.io, "cannot write the key file \(url.path): \(reason)")
        }
    }

    /// Reads a key file and checks that its public key and key id match its seed.
    ///
    /// - Throws: ``PublishError`` naming the file and what is wrong with it.
    public static func read(_ url: URL) throws(PublishError) -> Ed25519PrivateKey {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw PublishError(.io, "cannot read the key file \(url.path): \(IOErrorText.describe(error))")
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.format == format else {
            throw PublishError(.data, "\(url.path) is not a vpspack key file (expected JSON with format '\(format)'; make one with `vpspack keygen`)")
        }
        guard let seed = Hex.decode(contents.seed), seed.count == 32 else {
            throw PublishError(.data, "\(url.path): field 'seed' must be 64 hex digits")
        }
        let key: Ed25519PrivateKey
        do { key = try Ed25519PrivateKey(rawRepresentation: seed) } catch {
            throw PublishError(.data, "\(url.path): \(error.message)")
        }
        guard key.publicKey.hex == contents.public.lowercased(), key.publicKey.keyID == contents.keyid.lowercased() else {
            throw PublishError(.data, "\(url.path): the public key or key id does not match the seed (the file was altered)")
        }
        return key
    }
}

extension Ed25519PublicKey {
    /// Parses the 64-hex-digit form `vpspack keygen` prints and `vpspack trust --key` takes.
    public init?(hex: String) {
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex), let key = try? Ed25519PublicKey(rawRepresentation: bytes) else {
            return nil
        }
        self = key
    }
}
