internal import COpenSSL

/// Errors from the cryptography layer.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An Ed25519 public key (32 raw bytes).
public struct Ed25519PublicKey: Hashable, Sendable {
    public let rawRepresentation: [UInt8]

    /// - Throws: ``CryptoError`` when the bytes are not 32 long.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == 32 else {
            throw CryptoError("an Ed25519 public key is 32 bytes, got \(rawRepresentation.count)")
        }
        self.rawRepresentation = rawRepresentation
    }

    /// Lowercase hex of the 32 key bytes: the form `vpspack trust` takes and prints.
    public var hex: String { Hex.encode(rawRepresentation) }

    /// A short key id: the first 8 bytes of the SHA-256 of the raw key, in hex.
    public var keyID: String { String(SHA256.hash(rawRepresentation).hex.prefix(16)) }

    /// Checks an Ed25519 signature over `message` (`EVP_DigestVerify`).
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        guard let pkey = rawRepresentation.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }) else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, pkey) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
    }
}

/// An Ed25519 private key (32-byte seed).
public struct Ed25519PrivateKey: Sendable {
    public let rawRepresentation: [UInt8]
    public let publicKey: Ed25519PublicKey

    /// Generates a fresh key from OpenSSL's CSPRNG (`EVP_PKEY_Q_keygen`).
    public init() throws(CryptoError) {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw CryptoError("EVP_PKEY_CTX_new_id(ED25519) failed") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw CryptoError("EVP_PKEY_keygen_init failed") }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &pkey) == 1, let key = pkey else { throw CryptoError("EVP_PKEY_keygen failed") }
        defer { EVP_PKEY_free(key) }
        var seed = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_private_key(key, &seed, &length) == 1, length == 32 else {
            throw CryptoError("EVP_PKEY_get_raw_private_key failed")
        }
        try self.init(rawRepresentation: seed)
    }

    /// Restores a key from its 32-byte seed.
    public init(rawRepresentation seed: [UInt8]) throws(CryptoError) {
        guard seed.count == 32 else { throw CryptoError("an Ed25519 private key is 32 bytes, got \(seed.count)") }
        guard let pkey = seed.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }) else { throw CryptoError("EVP_PKEY_new_raw_private_key failed") }
        defer { EVP_PKEY_free(pkey) }
        var pub = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(pkey, &pub, &length) == 1, length == 32 else {
            throw CryptoError("EVP_PKEY_get_raw_public_key failed")
        }
        rawRepresentation = seed
        publicKey = try Ed25519PublicKey(rawRepresentation: pub)
    }

    /// Signs `message` (`EVP_DigestSign`); Ed25519 signatures are 64 bytes.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let pkey = rawRepresentation.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32)
        }) else { throw CryptoError("EVP_PKEY_new_raw_private_key failed") }
        defer { EVP_PKEY_free(pkey) }
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, nil, nil, pkey) == 1 else { throw CryptoError("EVP_DigestSignInit failed") }
        var sig = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSign(ctx, &sig, &length, message, message.count) == 1, length == 64 else {
            throw CryptoError("EVP_DigestSign failed")
        }
        return sig
    }
}
