public import Foundation

/// What the client holds for one (server, tour): the version it installed and who vouched for it.
public struct InstalledOffer: Sendable, Equatable {
    public var version: Int
    /// Key ids of the signatures on the accepted offer; empty when it was accepted unsigned.
    public var signerKeyIDs: Set<String>

    public init(version: Int, signerKeyIDs: Set<String>) {
        self.version = version
        self.signerKeyIDs = signerKeyIDs
    }

    /// The installed state recorded by an accepted envelope.
    public init(envelope: OfferEnvelope, version: Int) {
        self.init(version: version, signerKeyIDs: Set(envelope.signatures.map(\.keyid)))
    }
}

/// What to do with an offer that passed the policy.
public enum OfferDecision: Sendable, Equatable {
    /// Download and install it.
    case install
    /// The same version is installed: nothing to do ("already up to date").
    case upToDate
}

/// Freeze and rollback protection for verified offers: one pure function, no I/O.
///
/// The checks, in the order TUF's client workflow applies them to timestamp
/// metadata (spec 5.4): the offer is for the tour asked for; its version is not
/// lower than the installed one (rollback); it has not expired (freeze); its pack
/// format is one this build reads. An equal version is "up to date", yet only when
/// the offer is still fresh: an expired offer is refused whatever its version, so a
/// frozen server is noticed.
///
/// Fast-forward recovery (TUF's key-rotation recovery): when every key that signed
/// the installed offer has since been revoked, and the new offer is signed by a key
/// pinned now, the version floor set under the revoked keys no longer binds. A version
/// pushed very high with a stolen key therefore cannot lock clients out forever once
/// the operator rotates keys.
///
/// ```swift
/// let offer = try envelope.verifiedOffer(trustedKeys: keys, allowUnsigned: false)
/// switch try OfferPolicy.evaluate(offer, requestedTour: "demo", installed: installed,
///                                 trustedKeyIDs: Set(keys.map(\.keyID)), now: Date()) {
/// case .install: ...
/// case .upToDate: ...
/// }
/// ```
public enum OfferPolicy {
    /// The pack formats this build reads.
    public static let supportedFormats: ClosedRange<Int> = PackFormatVersion.current...PackFormatVersion.current

    /// Decides whether a verified offer may be installed.
    ///
    /// - Parameters:
    ///   - offer: an offer whose envelope already verified (``OfferEnvelope/verifiedOffer(trustedKeys:allowUnsigned:)``).
    ///   - requestedTour: the tour the user asked for.
    ///   - installed: what is installed for this server and tour, if anything.
    ///   - trustedKeyIDs: key ids pinned for this server now.
    ///   - now: the current time (expiry is checked against it).
    ///   - supportedFormats: the pack formats this build reads.
    /// - Throws: ``OfferError/wrongTour(expected:got:)``, ``OfferError/rollback(offered:installed:)``,
    ///   ``OfferError/expired(expires:now:)`` or ``OfferError/unsupportedFormat(_:)``.
    public static func evaluate(
        _ offer: Offer,
        requestedTour: String,
        installed: InstalledOffer?,
        trustedKeyIDs: Set<String>,
        now: Date,
        supportedFormats: ClosedRange<Int> = supportedFormats
    ) throws(OfferError) -> OfferDecision {
        guard offer.tour == requestedTour else { throw .wrongTour(expected: requestedTour, got: offer.tour) }
        if let installed, offer.version < installed.version, !recoversFromRotation(installed, trustedKeyIDs: trustedKeyIDs) {
            throw .rollback(offered: offer.version, installed: installed.version)
        }
        guard now < offer.expires else { throw .expired(expires: offer.expires, now: now) }
        if let installed, offer.version == installed.version { return .upToDate }
        guard supportedFormats.contains(offer.format) else { throw .unsupportedFormat(offer.format) }
        return .install
    }

    /// True when the installed version was vouched for only by keys revoked since, and some key is pinned now.
    public static func recoversFromRotation(_ installed: InstalledOffer, trustedKeyIDs: Set<String>) -> Bool {
        !installed.signerKeyIDs.isEmpty && !trustedKeyIDs.isEmpty && installed.signerKeyIDs.isDisjoint(with: trustedKeyIDs)
    }

    /// Checks a downloaded archive against its offer: exact length and SHA-256.
    ///
    /// - Throws: ``OfferError/archiveMismatch(_:)`` naming what differs.
    public static func checkArchive(_ offer: Offer, length: Int64, sha256: String) throws(OfferError) {
        guard length == offer.archive.length else {
            throw .archiveMismatch("the archive is \(length) bytes but the offer says \(offer.archive.length)")
        }
        guard sha256.lowercased() == offer.archive.sha256.lowercased() else {
            throw .archiveMismatch("the archive's SHA-256 is \(sha256) but the offer says \(offer.archive.sha256)")
        }
    }

    /// Checks that the archive's own manifest describes the pack the offer promised.
    ///
    /// - Throws: ``OfferError/archiveMismatch(_:)`` when the tour, version or format differ.
    public static func checkManifest(_ offer: Offer, tour: String, version: Int, format: Int) throws(OfferError) {
        guard tour == offer.tour else {
            throw .archiveMismatch("the archive's manifest is for tour '\(tour)' but the offer is for '\(offer.tour)'")
        }
        guard version == offer.version else {
            throw .archiveMismatch("the archive's manifest says version \(version) but the offer says \(offer.version)")
        }
        guard format == offer.format else {
            throw .archiveMismatch("the archive's manifest says format \(format) but the offer says \(offer.format)")
        }
    }
}
