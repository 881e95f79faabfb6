internal import COpenSSL
public import Foundation

/// A streaming SHA-256 digest over OpenSSL's EVP interface.
///
/// Feed bytes with ``update(_:)`` as they arrive, then call ``finalize()`` once.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(chunk)
/// let digest = hasher.finalize()   // 32 bytes
/// ```
///
/// The wrapped C context is `EVP_MD_CTX`; it is freed when the hasher is destroyed.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// Creates a hasher ready for input (`EVP_DigestInit_ex` with `EVP_sha256`).
    public init() {
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else { fatalError("EVP_DigestInit_ex(sha256) failed") }
        context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the digest (`EVP_DigestUpdate`).
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds the bytes of any contiguous collection of bytes.
    public mutating func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest and returns its 32 bytes (`EVP_DigestFinal_ex`).
    public consuming func finalize() -> Digest {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &length)
        return Digest(bytes: out)
    }

    /// The SHA-256 digest of a whole buffer.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// A 32-byte SHA-256 digest.
    public struct Digest: Hashable, Sendable, CustomStringConvertible {
        public let bytes: [UInt8]

        public init(bytes: [UInt8]) { self.bytes = bytes }

        /// Parses 64 lowercase or uppercase hex digits; nil for anything else.
        public init?(hex: String) {
            guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else { return nil }
            self.bytes = bytes
        }

        /// Lowercase hex, 64 characters.
        public var hex: String { Hex.encode(bytes) }
        public var description: String { hex }
    }
}

/// Lowercase hexadecimal encoding and decoding of byte strings.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = value(utf8[i]), let lo = value(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
