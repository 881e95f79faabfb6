import Foundation
import PackFormat
import Testing
import VPSCrypto

/// The rollback and expiration scenarios of the TUF conformance suite
/// (theupdateframework/tuf-conformance, tests test_rollback.py and test_expiration.py),
/// replayed against vpspack's offer logic.
///
/// vpspack has one signed document per tour, the offer, so TUF's roles map as:
/// timestamp, snapshot and targets metadata -> the offer (its version, expiry and
/// archive hash); root -> the keys pinned with `vpspack trust`; key rotation ->
/// `trust --key NEW` then `trust --revoke OLD`. Each test carries the scenario's name.
struct TUFScenarioTests {
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let keyA: Ed25519PrivateKey
    let keyB: Ed25519PrivateKey

    init() throws {
        keyA = try Ed25519PrivateKey()
        keyB = try Ed25519PrivateKey()
    }

    func freshClient(_ repo: OfferRepository) throws -> OfferClient {
        var client = OfferClient(trusting: keyA.publicKey)
        #expect(client.refresh(try repo.published(), now: start) == .installed(1))
        return client
    }

    // MARK: - test_rollback.py

    @Test("test_simple_snapshot_rollback: the old signed offer served again is refused")
    func simpleSnapshotRollback() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        let versionOne = try repo.published()
        repo.publishNewVersion(at: start)
        #expect(client.refresh(try repo.published(), now: start) == .installed(2))

        // The server (or a man in the middle) replays the genuine, still valid v1 offer.
        #expect(client.refresh(versionOne, now: start).isRollback)
        #expect(client.version == 2)
    }

    @Test("test_new_timestamp_version_rollback: a freshly signed lower version is refused")
    func newTimestampVersionRollback() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.publishNewVersion(at: start)
        #expect(client.refresh(try repo.published(), now: start) == .installed(2))

        repo.version = 1
        repo.created = start.addingTimeInterval(day)
        let result = client.refresh(try repo.published(), now: start.addingTimeInterval(day))
        #expect(result == .refused(.rollback(offered: 1, installed: 2)))
        #expect(client.version == 2)
    }

    @Test("test_snapshot_rollback: a lower version is refused whether or not it names new archive bytes",
          arguments: [false, true])
    func snapshotRollback(useHashes: Bool) throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.publishNewVersion(at: start)
        #expect(client.refresh(try repo.published(), now: start) == .installed(2))

        repo.version = 1
        if useHashes { repo.archiveBytes = Array("a different archive".utf8) }
        repo.expires = start.addingTimeInterval(60 * day)
        #expect(client.refresh(try repo.published(), now: start).isRollback)
        #expect(client.version == 2)
    }

    @Test("test_new_targets_fast_forward_recovery: after key rotation the version may start low again")
    func newTargetsFastForwardRecovery() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        for _ in 0..<99 { repo.publishNewVersion(at: start) }
        #expect(client.refresh(try repo.published(), now: start) == .installed(100))

        // The operator rotates keys: clients pin B and revoke A; the repository restarts at 2.
        client.pin(keyB.publicKey)
        client.revoke(keyA.publicKey)
        repo.signingKeys = [keyB]
        repo.version = 2
        repo.archiveBytes = Array("recovered".utf8)
        #expect(client.refresh(try repo.published(), now: start) == .installed(2))
        #expect(client.version == 2)
    }

    @Test("test_new_snapshot_fast_forward_recovery: a version fast-forwarded to 99999 is recovered by rotation")
    func newSnapshotFastForwardRecovery() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.version = 99_999
        #expect(client.refresh(try repo.published(), now: start) == .installed(99_999))

        // Before the rotation the floor holds.
        repo.version = 1
        #expect(client.refresh(try repo.published(), now: start).isRollback)

        client.pin(keyB.publicKey)
        client.revoke(keyA.publicKey)
        repo.signingKeys = [keyB]
        #expect(client.refresh(try repo.published(), now: start) == .installed(1))
    }

    @Test("test_new_snapshot_version_mismatch: an archive whose manifest disagrees with the offer is refused")
    func newSnapshotVersionMismatch() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.publishNewVersion(at: start)
        // The offer says version 2 but the archive inside claims version 3.
        let result = client.refresh(try repo.published(), now: start, manifestVersion: 3)
        guard case .refused(.archiveMismatch(let why)) = result else {
            Issue.record("expected archiveMismatch, got \(result)")
            return
        }
        #expect(why.contains("version 3"))
        #expect(client.version == 1)
    }

    @Test("test_new_timestamp_fast_forward_recovery: rotation lets version 1 replace version 100")
    func newTimestampFastForwardRecovery() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        for _ in 0..<99 { repo.publishNewVersion(at: start) }
        #expect(client.refresh(try repo.published(), now: start) == .installed(100))

        // Pinning the new key alone is not enough: A still vouches for version 100.
        client.pin(keyB.publicKey)
        repo.signingKeys = [keyB]
        repo.version = 1
        #expect(client.refresh(try repo.published(), now: start).isRollback)

        client.revoke(keyA.publicKey)
        #expect(client.refresh(try repo.published(), now: start) == .installed(1))
    }

    @Test("test_targets_rollback: a lower version is refused even when everything else is newer",
          arguments: [false, true])
    func targetsRollback(useHashes: Bool) throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.publishNewVersion(at: start)
        repo.publishNewVersion(at: start)
        #expect(client.refresh(try repo.published(), now: start) == .installed(3))

        repo.version = 1
        repo.created = start.addingTimeInterval(2 * day)
        repo.expires = start.addingTimeInterval(90 * day)
        if useHashes { repo.archiveBytes = Array("rolled back archive".utf8) }
        let result = client.refresh(try repo.published(), now: start.addingTimeInterval(2 * day))
        #expect(result == .refused(.rollback(offered: 1, installed: 3)))
        #expect(client.version == 3)
    }

    // MARK: - test_expiration.py

    @Test("test_root_expired: a trust change persists while an expired offer signed under it is refused")
    func rootExpired() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        client.pin(keyB.publicKey)
        repo.signingKeys = [keyB]
        repo.publishNewVersion(at: start)
        repo.expires = start.addingTimeInterval(-day)

        #expect(client.refresh(try repo.published(), now: start).isExpired)
        #expect(client.trustedKeys.contains(keyB.publicKey))
        #expect(client.version == 1)
    }

    @Test("test_snapshot_expired: a newer but expired offer is not installed")
    func snapshotExpired() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        repo.publishNewVersion(at: start)
        repo.expires = start.addingTimeInterval(-5 * day)
        let result = client.refresh(try repo.published(), now: start)
        #expect(result == .refused(.expired(expires: repo.expires, now: start)))
        #expect(client.version == 1)
    }

    @Test("test_targets_expired: an expired offer is refused on the first download too")
    func targetsExpired() throws {
        var repo = OfferRepository(now: start, key: keyA)
        repo.expires = start.addingTimeInterval(-5 * day)
        var client = OfferClient(trusting: keyA.publicKey)
        #expect(client.refresh(try repo.published(), now: start).isExpired)
        #expect(client.installed == nil)
    }

    @Test("test_expired_metadata: an expired installed offer does not block a fresh one")
    func expiredMetadata() throws {
        var repo = OfferRepository(now: start, key: keyA)
        repo.expires = start.addingTimeInterval(7 * day)
        var client = try freshClient(repo)

        repo.publishNewVersion(at: start)
        repo.expires = start.addingTimeInterval(21 * day)
        // Day 18: the installed offer expired on day 7, the new one is valid until day 21.
        #expect(client.refresh(try repo.published(), now: start.addingTimeInterval(18 * day)) == .installed(2))
        #expect(client.version == 2)
    }

    @Test("test_timestamp_expired: the same version re-signed but expired is a freeze, not 'up to date'")
    func timestampExpired() throws {
        var repo = OfferRepository(now: start, key: keyA)
        var client = try freshClient(repo)
        #expect(client.refresh(try repo.published(), now: start) == .upToDate)

        repo.expires = start.addingTimeInterval(-5 * day)
        #expect(client.refresh(try repo.published(), now: start).isExpired)
        #expect(client.version == 1)
    }
}

/// The policy's own rules, beyond the TUF scenarios.
struct OfferPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func offer(tour: String = "demo", version: Int = 2, format: Int = PackFormatVersion.current, expiresIn: TimeInterval = 3600) -> Offer {
        Offer(tour: tour, version: version, created: now, expires: now.addingTimeInterval(expiresIn), format: format,
              archive: .init(path: "a.vpspack", length: 10, sha256: String(repeating: "ab", count: 32)))
    }

    @Test func offerForAnotherTourIsRefused() {
        #expect(throws: OfferError.wrongTour(expected: "demo", got: "other")) {
            try OfferPolicy.evaluate(offer(tour: "other"), requestedTour: "demo", installed: nil, trustedKeyIDs: [], now: now)
        }
    }

    @Test func unsupportedFormatIsRefused() {
        #expect(throws: OfferError.unsupportedFormat(99)) {
            try OfferPolicy.evaluate(offer(format: 99), requestedTour: "demo", installed: nil, trustedKeyIDs: [], now: now)
        }
    }

    @Test func expiryIsExclusive() {
        #expect(throws: OfferError.expired(expires: now, now: now)) {
            try OfferPolicy.evaluate(offer(expiresIn: 0), requestedTour: "demo", installed: nil, trustedKeyIDs: [], now: now)
        }
    }

    @Test(arguments: [(1, OfferDecision.install), (2, .upToDate)])
    func newerInstallsAndEqualIsUpToDate(installedVersion: Int, expected: OfferDecision) throws {
        let decision = try OfferPolicy.evaluate(
            offer(), requestedTour: "demo", installed: InstalledOffer(version: installedVersion, signerKeyIDs: ["k"]),
            trustedKeyIDs: ["k"], now: now)
        #expect(decision == expected)
    }

    @Test func unsignedInstalledVersionKeepsItsFloor() {
        // Accepted with --allow-unsigned: no key vouched, so no rotation can lift the floor.
        #expect(throws: OfferError.rollback(offered: 2, installed: 5)) {
            try OfferPolicy.evaluate(offer(), requestedTour: "demo", installed: InstalledOffer(version: 5, signerKeyIDs: []),
                                     trustedKeyIDs: ["new"], now: now)
        }
    }

    @Test func archiveLengthAndHashMustMatch() throws {
        let o = offer()
        try OfferPolicy.checkArchive(o, length: 10, sha256: String(repeating: "AB", count: 32))
        #expect(throws: OfferError.self) { try OfferPolicy.checkArchive(o, length: 11, sha256: o.archive.sha256) }
        #expect(throws: OfferError.self) { try OfferPolicy.checkArchive(o, length: 10, sha256: String(repeating: "0", count: 64)) }
    }
}
