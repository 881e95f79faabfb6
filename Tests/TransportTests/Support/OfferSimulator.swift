import Foundation
import PackFormat
import VPSCrypto

/// A publisher of signed offers for one tour, the counterpart of tuf-conformance's RepositorySimulator.
struct OfferRepository {
    var tour = "demo"
    var version = 1
    var signingKeys: [Ed25519PrivateKey]
    var created: Date
    var expires: Date
    var archiveBytes: [UInt8] = Array("archive v1".utf8)

    init(now: Date, key: Ed25519PrivateKey) {
        signingKeys = [key]
        created = now
        expires = now.addingTimeInterval(30 * 86_400)
    }

    var offer: Offer {
        Offer(tour: tour, version: version, created: created, expires: expires, format: PackFormatVersion.current,
              archive: .init(path: "\(tour)-\(version).vpspack", length: Int64(archiveBytes.count),
                             sha256: SHA256.hash(archiveBytes).hex))
    }

    /// The offer.json bytes the server would serve now.
    func published() throws -> Data {
        try OfferEnvelope(offer: offer, signedBy: signingKeys).encoded()
    }

    /// A new version with new archive bytes, signed now.
    mutating func publishNewVersion(at now: Date) {
        version += 1
        archiveBytes = Array("archive v\(version)".utf8)
        created = now
    }
}

/// The client side of the offer logic: pinned keys and the installed offer, as the store keeps them.
struct OfferClient {
    var trustedKeys: [Ed25519PublicKey]
    var installed: InstalledOffer?
    var tour = "demo"

    enum Refresh: Equatable {
        case installed(Int)
        case upToDate
        case refused(OfferError)
    }

    init(trusting key: Ed25519PublicKey) {
        trustedKeys = [key]
    }

    /// Verifies, evaluates and, when accepted, "installs" an offer; refusal leaves the state untouched.
    @discardableResult
    mutating func refresh(_ data: Data, now: Date, manifestVersion: Int? = nil) -> Refresh {
        do {
            let envelope = try OfferEnvelope.decode(data)
            let offer = try envelope.verifiedOffer(trustedKeys: trustedKeys, allowUnsigned: false)
            let decision = try OfferPolicy.evaluate(
                offer, requestedTour: tour, installed: installed,
                trustedKeyIDs: Set(trustedKeys.map(\.keyID)), now: now)
            guard decision == .install else { return .upToDate }
            try OfferPolicy.checkManifest(offer, tour: offer.tour, version: manifestVersion ?? offer.version, format: offer.format)
            installed = InstalledOffer(envelope: envelope, version: offer.version)
            return .installed(offer.version)
        } catch {
            return .refused(error)
        }
    }

    /// `vpspack trust --key`: pins another key.
    mutating func pin(_ key: Ed25519PublicKey) { trustedKeys.append(key) }

    /// `vpspack trust --revoke`.
    mutating func revoke(_ key: Ed25519PublicKey) { trustedKeys.removeAll { $0 == key } }

    var version: Int? { installed?.version }
}

extension OfferClient.Refresh {
    var isRollback: Bool {
        if case .refused(.rollback) = self { return true }
        return false
    }

    var isExpired: Bool {
        if case .refused(.expired) = self { return true }
        return false
    }
}
