public import Foundation
public import VPSCrypto

/// What a server offers for one tour: the payload of the signed offer.
///
/// Served as `<server>/tours/<tour>/offer.json` inside a DSSE envelope
/// (``OfferEnvelope``). The version is an integer that only grows.
public struct Offer: Codable, Sendable, Equatable {
    /// The tour (venue map) this offer is for.
    public var tour: String
    /// The pack version; monotonic per tour.
    public var version: Int
    public var created: Date
    /// After this instant the offer is refused (freeze protection).
    public var expires: Date
    /// The pack format version of the archive.
    public var format: Int
    public var archive: ArchiveReference

    /// The archive an offer points at: a path relative to `<server>/tours/<tour>/`, its exact length and SHA-256.
    public struct ArchiveReference: Codable, Sendable, Equatable {
        public var path: String
        public var length: Int64
        public var sha256: String

        public init(path: String, length: Int64, sha256: String) {
            self.path = path
            self.length = length
            self.sha256 = sha256
        }
    }

    public init(tour: String, version: Int, created: Date, expires: Date, format: Int, archive: ArchiveReference) {
        self.tour = tour
        self.version = version
        self.created = created
        self.expires = expires
        self.format = format
        self.archive = archive
    }

    /// The canonical JSON bytes of this payload (sorted keys, ISO 8601 UTC dates).
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, enc in
            var c = enc.singleValueContainer()
            try c.encode(ISO8601.format(date))
        }
        // Encoding plain strings, integers and dates cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Parses and checks a payload: a tour name that is safe as a path component,
    /// a positive version, an archive path without directories, a 64-hex SHA-256.
    public static func decode(_ data: Data) throws(OfferError) -> Offer {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { dec in
            let c = try dec.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        let offer: Offer
        do {
            offer = try decoder.decode(Offer.self, from: data)
        } catch {
            throw .malformed("the offer payload is not valid offer JSON (\(DecodingErrorText.describe(error)))")
        }
        guard TourName.isValid(offer.tour) else { throw .malformed("the offer names an invalid tour '\(offer.tour)'") }
        guard offer.version > 0 else { throw .malformed("the offer version must be positive, got \(offer.version)") }
        guard offer.archive.length >= 0 else { throw .malformed("the offer gives a negative archive length") }
        guard SHA256.Digest(hex: offer.archive.sha256) != nil else {
            throw .malformed("the offer's archive sha256 is not 64 hex digits")
        }
        let path = offer.archive.path
        guard !path.isEmpty, !path.contains("/"), !path.contains("\\"), path != ".", path != "..", !path.hasPrefix(".") else {
            throw .malformed("the offer's archive path '\(path)' must be a plain file name")
        }
        return offer
    }
}

/// Tour identifiers: 1-128 characters of letters, digits, `.`, `_`, `-`, not starting with `.`.
public enum TourName {
    public static func isValid(_ name: String) -> Bool {
        guard (1...128).contains(name.utf8.count), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
    }
}

/// Why an offer was refused.
public enum OfferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a DSSE envelope, wrong payload type, bad base64, bad payload JSON or fields.
    case malformed(String)
    /// No signature and unsigned offers were not allowed.
    case unsigned
    /// Signed, but by no key pinned for this server.
    case untrustedKey(keyIDs: [String])
    /// A signature from a pinned key that does not verify.
    case badSignature(keyID: String)
    case expired(expires: Date, now: Date)
    /// The offer is for another tour than the one asked for.
    case wrongTour(expected: String, got: String)
    /// The offer's version is lower than the installed one.
    case rollback(offered: Int, installed: Int)
    case unsupportedFormat(Int)
    /// The downloaded archive is not what the offer promised (length, SHA-256, manifest tour or version).
    case archiveMismatch(String)

    public var description: String {
        switch self {
        case .malformed(let why): return why
        case .unsigned: return "the offer is unsigned; pin the server's key with `vpspack trust` or pass --allow-unsigned"
        case .untrustedKey(let ids):
            return "the offer is signed by \(ids.isEmpty ? "no key" : "key " + ids.joined(separator: ", ")), which is not pinned for this server (see `vpspack trust`)"
        case .badSignature(let id): return "the offer's signature by pinned key \(id) does not verify: the offer was altered or forged"
        case .expired(let expires, let now):
            return "the offer expired at \(ISO8601.format(expires)) (now \(ISO8601.format(now))); the server must publish a fresh one"
        case .wrongTour(let expected, let got): return "asked for tour '\(expected)' but the server's offer is for tour '\(got)'"
        case .rollback(let offered, let installed):
            return "the offer's version \(offered) is older than the installed version \(installed) (rollback refused)"
        case .archiveMismatch(let why): return why + "; nothing was installed"
        case .unsupportedFormat(let f): return "the offer is for pack format \(f), which this vpspack does not read (it reads format \(PackFormatVersion.current))"
        }
    }
}

/// The pack format versions this build reads and writes.
public enum PackFormatVersion {
    public static let current = 1
}

/// A DSSE envelope carrying an ``Offer`` (https://github.com/secure-systems-lab/dsse).
///
/// Signatures are Ed25519 over the pre-authentication encoding ``pae(payloadType:payload:)``
/// of the payload type and the raw payload bytes.
public struct OfferEnvelope: Codable, Sendable, Equatable {
    public static let offerPayloadType = "application/vnd.vpspack.offer+json"

    public var payloadType: String
    /// Base64 of the payload bytes.
    public var payload: String
    public var signatures: [Signature]

    public struct Signature: Codable, Sendable, Equatable {
        public var keyid: String
        /// Base64 of the 64 signature bytes.
        public var sig: String

        public init(keyid: String, sig: String) {
            self.keyid = keyid
            self.sig = sig
        }
    }

    public init(payloadType: String, payload: String, signatures: [Signature]) {
        self.payloadType = payloadType
        self.payload = payload
        self.signatures = signatures
    }

    /// Wraps an offer, signed by each of `keys` (none for an unsigned envelope).
    public init(offer: Offer, signedBy keys: [Ed25519PrivateKey]) throws(CryptoError) {
        let body = offer.encoded()
        let message = Self.pae(payloadType: Self.offerPayloadType, payload: Array(body))
        var signatures: [Signature] = []
        for key in keys {
            let sig = try key.signature(for: message)
            signatures.append(Signature(keyid: key.publicKey.keyID, sig: Data(sig).base64EncodedString()))
        }
        self.init(payloadType: Self.offerPayloadType, payload: body.base64EncodedString(), signatures: signatures)
    }

    /// DSSE v1 pre-authentication encoding: `"DSSEv1" SP len(type) SP type SP len(body) SP body`.
    public static func pae(payloadType: String, payload: [UInt8]) -> [UInt8] {
        var out = Array("DSSEv1 \(payloadType.utf8.count) \(payloadType) \(payload.count) ".utf8)
        out.append(contentsOf: payload)
        return out
    }

    /// Parses an envelope from JSON bytes.
    public static func decode(_ data: Data) throws(OfferError) -> OfferEnvelope {
        do {
            return try JSONDecoder().decode(OfferEnvelope.self, from: data)
        } catch {
            throw .malformed("offer.json is not a DSSE envelope (\(DecodingErrorText.describe(error)))")
        }
    }

    /// The envelope as JSON bytes, as written to offer.json.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Checks the envelope and returns its offer.
    ///
    /// Accepts when at least one signature by a key in `trustedKeys` verifies, or,
    /// with `allowUnsigned`, when there is no trusted key to check against.
    /// A signature by a pinned key that fails is always an error.
    ///
    /// - Throws: ``OfferError`` naming what was wrong.
    public func verifiedOffer(trustedKeys: [Ed25519PublicKey], allowUnsigned: Bool) throws(OfferError) -> Offer {
        guard payloadType == Self.offerPayloadType else {
            throw .malformed("the offer's payloadType is '\(payloadType)', expected '\(Self.offerPayloadType)'")
        }
        guard let body = Data(base64Encoded: payload) else { throw .malformed("the offer's payload is not valid base64") }
        let message = Self.pae(payloadType: payloadType, payload: Array(body))
        var verified = false
        for signature in signatures {
            guard let key = trustedKeys.first(where: { $0.keyID == signature.keyid }) else { continue }
            guard let sig = Data(base64Encoded: signature.sig), key.isValidSignature(Array(sig), for: message) else {
                throw .badSignature(keyID: signature.keyid)
            }
            verified = true
        }
        if !verified {
            if signatures.isEmpty || trustedKeys.isEmpty {
                guard allowUnsigned else {
                    throw signatures.isEmpty ? .unsigned : .untrustedKey(keyIDs: signatures.map(\.keyid))
                }
            } else {
                throw .untrustedKey(keyIDs: signatures.map(\.keyid))
            }
        }
        return try Offer.decode(body)
    }
}

/// ISO 8601 UTC timestamps with second precision: `2026-11-30T19:00:00Z`.
public enum ISO8601 {
    public static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }

    public static func parse(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }
}

/// Short, readable text for a `DecodingError`: what was wrong and at which key path.
public enum DecodingErrorText {
    public static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return String(describing: error) }
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch e {
        case .keyNotFound(let key, let ctx): return "missing field '\(path(ctx.codingPath + [key]))'"
        case .typeMismatch(let type, let ctx): return "field '\(path(ctx.codingPath))' is not \(type)"
        case .valueNotFound(let type, let ctx): return "field '\(path(ctx.codingPath))' is null, expected \(type)"
        case .dataCorrupted(let ctx):
            return ctx.codingPath.isEmpty ? "not valid JSON" : "field '\(path(ctx.codingPath))': \(ctx.debugDescription)"
        @unknown default: return String(describing: e)
        }
    }
}
