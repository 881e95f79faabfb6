import Foundation
import PackFormat
import PackTransport
import Testing
import VPSCrypto

/// Key files and publishing into a static site.
struct PublishTests {
    @Test func keyFileRoundTripsWithMode0600AndNeverOverwrites() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("signing.key")
        let key = try Ed25519PrivateKey()
        try SigningKeyFile.write(key, to: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let back = try SigningKeyFile.read(url)
        #expect(back.publicKey == key.publicKey)
        #expect(back.rawRepresentation == key.rawRepresentation)

        let other = try Ed25519PrivateKey()
        #expect(throws: PublishError.self) { try SigningKeyFile.write(other, to: url) }
        #expect(try SigningKeyFile.read(url).publicKey == key.publicKey, "the first key must survive")
    }

    @Test func alteredKeyFileIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("signing.key")
        try SigningKeyFile.write(try Ed25519PrivateKey(), to: url)
        var text = try String(contentsOf: url, encoding: .utf8)
        let other = try Ed25519PrivateKey().publicKey.hex
        let publicLine = try #require(text.split(separator: "\n").first { $0.contains("\"public\"") })
        text = text.replacingOccurrences(of: String(publicLine), with: "  \"public\" : \"\(other)\",")
        try Data(text.utf8).write(to: url)
        let error = #expect(throws: PublishError.self) { try SigningKeyFile.read(url) }
        #expect(error?.message.contains("does not match the seed") == true)

        try Data("not json".utf8).write(to: url)
        let notKey = #expect(throws: PublishError.self) { try SigningKeyFile.read(url) }
        #expect(notKey?.kind == .data)
    }

    @Test func publishWritesAVerifiableOfferAndTheArchive() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("in.vpspack")
        let bytes = testBytes(50_000)
        try Data(bytes).write(to: archive)
        let key = try Ed25519PrivateKey()
        let site = dir.appendingPathComponent("site")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let result = try SitePublisher.publish(
            archive: archive, identity: .init(tour: "demo", version: 3, format: 1), site: site, key: key,
            validity: 86_400, now: now)
        #expect(result.archiveFile.path == site.appendingPathComponent("tours/demo/demo-3.vpspack").path)
        #expect(try Data(contentsOf: result.archiveFile) == Data(bytes))

        let envelope = try OfferEnvelope.decode(try Data(contentsOf: site.appendingPathComponent("tours/demo/offer.json")))
        let offer = try envelope.verifiedOffer(trustedKeys: [key.publicKey], allowUnsigned: false)
        #expect(offer.version == 3)
        #expect(offer.archive.path == "demo-3.vpspack")
        #expect(offer.archive.length == 50_000)
        #expect(offer.archive.sha256 == SHA256.hash(bytes).hex)
        #expect(offer.expires == now.addingTimeInterval(86_400))
    }

    @Test func republishingRefreshesOnlyTheSameBytesAndNeverRollsBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("in.vpspack")
        try Data(testBytes(1000)).write(to: archive)
        let key = try Ed25519PrivateKey()
        let site = dir.appendingPathComponent("site")
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try SitePublisher.publish(archive: archive, identity: .init(tour: "demo", version: 2, format: 1), site: site, key: key, validity: 100, now: t0)

        let again = try SitePublisher.publish(archive: archive, identity: .init(tour: "demo", version: 2, format: 1), site: site, key: key,
                                              validity: 100, now: t0.addingTimeInterval(50))
        #expect(again.refreshedOnly)
        #expect(again.offer.expires == t0.addingTimeInterval(150))

        let changed = dir.appendingPathComponent("changed.vpspack")
        try Data(testBytes(1000, seed: 9)).write(to: changed)
        let sameVersion = #expect(throws: PublishError.self) {
            try SitePublisher.publish(archive: changed, identity: .init(tour: "demo", version: 2, format: 1), site: site, key: key, validity: 100)
        }
        #expect(sameVersion?.message.contains("new version") == true)
        let lower = #expect(throws: PublishError.self) {
            try SitePublisher.publish(archive: changed, identity: .init(tour: "demo", version: 1, format: 1), site: site, key: key, validity: 100)
        }
        #expect(lower?.message.contains("rollback") == true)
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent("tours/demo/demo-1.vpspack").path))
    }

    @Test(arguments: [("30d", 30 * 86_400.0), ("12h", 43_200), ("90m", 5_400), ("45s", 45), ("2w", 1_209_600), ("7", 604_800)])
    func validityParses(text: String, seconds: Double) {
        #expect(SitePublisher.parseValidity(text) == seconds)
    }

    @Test(arguments: ["", "d", "0d", "-3d", "3y", "1.5d"])
    func badValidityIsRejected(text: String) {
        #expect(SitePublisher.parseValidity(text) == nil)
    }
}
