import Testing
import VPSCrypto

@Suite struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([UInt8]()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func streamingEqualsOneShot() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        hasher.update(Array(bytes[0..<3333]))
        hasher.update(Array(bytes[3333...]))
        #expect(hasher.finalize() == SHA256.hash(bytes))
    }

    @Test func ed25519SignVerify() throws {
        let key = try Ed25519PrivateKey()
        let message = Array("offer".utf8)
        let sig = try key.signature(for: message)
        #expect(key.publicKey.isValidSignature(sig, for: message))
        #expect(!key.publicKey.isValidSignature(sig, for: Array("offeR".utf8)))
        let restored = try Ed25519PrivateKey(rawRepresentation: key.rawRepresentation)
        #expect(restored.publicKey == key.publicKey)
    }
}
