import Foundation
import PackFormat
import PackStore
import Testing
import VPSCrypto
import VPSSQLite

@Suite struct PackStoreCommitTests {
    let server = StoreFixtures.server

    @Test func commitThenReadBack() throws {
        let dir = try TemporaryDirectory()
        let (archive, manifest) = try StoreFixtures.archive(in: dir, version: 1, seed: 1)
        let store = try PackStore(directory: dir.path("store"))
        let result = try store.commit(archive: archive, server: server, tour: "demo")
        #expect(result.version == 1 && result.previousVersion == nil && result.newFiles == 4 && result.sharedFiles == 0)

        let info = try store.info(server: server, tour: "demo")
        #expect(info.version == 1)
        #expect(info.manifest == manifest)
        let pack = try store.openPack(server: server, tour: "demo")
        #expect(try pack.data(at: "map/own.bin") == Data(StoreFixtures.bytes(400_000, seed: 1)))
        #expect(try pack.data(at: "map/shared.bin") == Data(StoreFixtures.bytes(1_500_000, seed: 42)))
        #expect(try pack.data(at: "map/empty.bin").isEmpty)
        #expect(throws: PackFormatError.noSuchFile("map/x")) { try pack.data(at: "map/x") }
        let report = try store.verify(server: server, tour: "demo")
        #expect(report.isClean && report.filesChecked == 4)
        #expect(try store.info(server: server, tour: "demo").lastVerified != nil)
        #expect(try store.integrityCheck().isEmpty)
    }

    @Test func identicalFilesAreStoredOnceAcrossVersionsAndTours() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        try store.commit(archive: StoreFixtures.archive(in: dir, tour: "a", version: 1, seed: 1).url, server: server, tour: "a")
        let second = try store.commit(archive: StoreFixtures.archive(in: dir, tour: "b", version: 1, seed: 2).url, server: server, tour: "b")
        // shared.bin, empty.bin and tags.json ({"version":1}) are already stored.
        #expect(second.sharedFiles == 3 && second.newFiles == 1)
        let db = try Database(path: store.databaseURL.path)
        #expect(try db.scalar("SELECT count(*) FROM files")?.integer == 5)
        let upgrade = try store.commit(archive: StoreFixtures.archive(in: dir, tour: "a", version: 2, seed: 3).url, server: server, tour: "a")
        #expect(upgrade.previousVersion == 1 && upgrade.sharedFiles == 2)
        // a@1's own.bin is gone; a@2 adds own.bin (seed 3) and tags.json {"version":2}.
        #expect(try db.scalar("SELECT count(*) FROM files")?.integer == 6)
        #expect(try store.verify(server: server, tour: "a").isClean)
        #expect(try store.verify(server: server, tour: "b").isClean)
    }

    @Test func failedCommitLeavesThePreviousVersion() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        try store.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo")
        let bad = try StoreFixtures.tamperedArchive(in: dir, version: 2)
        #expect {
            try store.commit(archive: bad, server: server, tour: "demo")
        } throws: { error in
            guard case StoreError.format(.hashMismatch(let path, _, _)) = error else { return false }
            return path == "map/own.bin"
        }
        #expect(try store.installedVersion(server: server, tour: "demo") == 1)
        #expect(try store.verify(server: server, tour: "demo").isClean)
        let db = try Database(path: store.databaseURL.path)
        #expect(try db.scalar("SELECT count(*) FROM files")?.integer == 4, "no content left behind by the failed commit")
    }

    @Test func olderVersionIsRefusedAsRollback() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        try store.commit(archive: StoreFixtures.archive(in: dir, version: 5, seed: 1).url, server: server, tour: "demo")
        #expect(throws: StoreError.offer(.rollback(offered: 4, installed: 5))) {
            try store.commit(archive: StoreFixtures.archive(in: dir, version: 4, seed: 2).url, server: server, tour: "demo")
        }
        #expect(try store.installedVersion(server: server, tour: "demo") == 5)
    }

    @Test func archiveOfAnotherTourIsRefused() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let archive = try StoreFixtures.archive(in: dir, tour: "other", version: 1, seed: 1).url
        #expect(throws: StoreError.self) { try store.commit(archive: archive, server: server, tour: "demo") }
        #expect(try store.list().isEmpty)
    }

    @Test func versionMustMatchTheOffer() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let archive = try StoreFixtures.archive(in: dir, version: 2, seed: 1).url
        let offer = Offer(tour: "demo", version: 3, created: Date(), expires: Date().addingTimeInterval(60), format: 1,
                          archive: .init(path: "demo.vpspack", length: 1, sha256: String(repeating: "0", count: 64)))
        let accepted = AcceptedOffer(envelope: Data("{}".utf8), offer: offer)
        #expect(throws: StoreError.offer(.archiveMismatch("the archive's manifest says version 2 but the offer says 3"))) {
            try store.commit(archive: archive, server: server, tour: "demo", offer: accepted)
        }
    }

    @Test func acceptedOfferIsStoredWithThePack() throws {
        let dir = try TemporaryDirectory()
        let archive = try StoreFixtures.archive(in: dir, version: 2, seed: 1).url
        let offer = Offer(tour: "demo", version: 2, created: Date(), expires: Date().addingTimeInterval(60), format: 1,
                          archive: .init(path: "demo.vpspack", length: 9, sha256: String(repeating: "a", count: 64)))
        let envelope = try OfferEnvelope(offer: offer, signedBy: []).encoded()
        do {
            let store = try PackStore(directory: dir.path("store"))
            try store.commit(archive: archive, server: server, tour: "demo", offer: AcceptedOffer(envelope: envelope, offer: offer),
                             archiveDigest: (9, String(repeating: "a", count: 64)))
        }
        // Reopened, as after a restart.
        let store = try PackStore(directory: dir.path("store"))
        let info = try store.info(server: server, tour: "demo")
        #expect(info.offerEnvelope == envelope)
        #expect(info.archiveLength == 9)
    }

    @Test func notDownloadedIsReported() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        #expect(throws: StoreError.notDownloaded(server: server, tour: "demo")) { try store.verify(server: server, tour: "demo") }
        #expect(throws: StoreError.notDownloaded(server: server, tour: "demo")) { try store.remove(server: server, tour: "demo") }
        #expect(throws: StoreError.notDownloaded(server: server, tour: "demo")) { try store.openPack(server: server, tour: "demo") }
        #expect(StoreError.notDownloaded(server: server, tour: "demo").description.contains("vpspack download"))
    }
}

@Suite struct PackStoreMaintenanceTests {
    let server = StoreFixtures.server

    @Test func removeShrinksTheDatabaseFile() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        try store.commit(archive: StoreFixtures.archive(in: dir, tour: "a", version: 1, seed: 1, ownSize: 3_000_000).url, server: server, tour: "a")
        try store.commit(archive: StoreFixtures.archive(in: dir, tour: "b", version: 1, seed: 2, ownSize: 3_000_000).url, server: server, tour: "b")
        let before = StoreFixtures.fileSize(store.databaseURL)
        #expect(before > 7_000_000)
        #expect(try store.remove(server: server, tour: "a") == 1)
        let afterOne = StoreFixtures.fileSize(store.databaseURL)
        #expect(before - afterOne > 2_900_000, "removing a pack frees its own 3 MB: \(before) -> \(afterOne)")
        #expect(try store.verify(server: server, tour: "b").isClean, "shared content stays for the other tour")
        let removed = try store.removeAll()
        #expect(removed.map(\.tour) == ["b"])
        let afterAll = StoreFixtures.fileSize(store.databaseURL)
        #expect(afterAll < 1_000_000, "an empty store is small again: \(afterAll)")
        #expect(try store.list().isEmpty)
    }

    @Test func attachmentsRoundTripAndSurviveAnUpgrade() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let nav = dir.path("nav.json")
        let settings = dir.path("arSettings.json")
        try Data("{\"graph\":[1,2,3]}".utf8).write(to: nav)
        try Data(StoreFixtures.bytes(2_500_000, seed: 5)).write(to: settings)
        try store.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo",
                         attachments: [HostAttachment(name: "nav.json", file: nav), HostAttachment(name: "arSettings.json", file: settings)])
        #expect(try store.attachment(named: "nav.json", server: server, tour: "demo") == Data("{\"graph\":[1,2,3]}".utf8))
        #expect(try store.attachment(named: "arSettings.json", server: server, tour: "demo") == Data(StoreFixtures.bytes(2_500_000, seed: 5)))
        #expect(throws: StoreError.noSuchAttachment(name: "x", server: server, tour: "demo")) {
            try store.attachment(named: "x", server: server, tour: "demo")
        }
        // A new version keeps the attachments, replacing only those given again.
        try Data("{\"graph\":[]}".utf8).write(to: nav)
        try store.commit(archive: StoreFixtures.archive(in: dir, version: 2, seed: 2).url, server: server, tour: "demo",
                         attachments: [HostAttachment(name: "nav.json", file: nav)])
        #expect(try store.attachment(named: "nav.json", server: server, tour: "demo") == Data("{\"graph\":[]}".utf8))
        #expect(try store.info(server: server, tour: "demo").attachments.map(\.name) == ["arSettings.json", "nav.json"])
        let report = try store.verify(server: server, tour: "demo")
        #expect(report.isClean && report.filesChecked == 6)
    }

    @Test(arguments: ["", "../x", "a/b", ".hidden", String(repeating: "n", count: 256)])
    func badAttachmentNamesAreRefused(name: String) throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let file = dir.path("f")
        try Data("x".utf8).write(to: file)
        #expect(throws: StoreError.invalidAttachmentName(name)) {
            try store.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo",
                             attachments: [HostAttachment(name: name, file: file)])
        }
    }

    @Test func verifyNamesTheFileDamagedInsideTheDatabase() throws {
        let dir = try TemporaryDirectory()
        let dbURL: URL
        do {
            let store = try PackStore(directory: dir.path("store"))
            try store.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo")
            dbURL = store.databaseURL
        }
        let needle = Array(StoreFixtures.bytes(400_000, seed: 1)[200_000..<200_064])
        #expect(try StoreFixtures.corrupt(fileAt: dbURL, where: needle), "the content of map/own.bin is in the database file")
        let store = try PackStore(directory: dir.path("store"))
        let report = try store.verify(server: server, tour: "demo")
        #expect(report.damaged.map(\.path) == ["map/own.bin"])
        #expect(try store.info(server: server, tour: "demo").lastVerified == nil)
        let pack = try store.openPack(server: server, tour: "demo")
        #expect(throws: StoreError.self) { try pack.data(at: "map/own.bin") }
    }

    @Test func verifyNamesAFileWhosePagesCannotBeRead() throws {
        let dir = try TemporaryDirectory()
        let dbURL: URL
        do {
            let store = try PackStore(directory: dir.path("store"))
            try store.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo")
            dbURL = store.databaseURL
        }
        // Break the chain of overflow pages that holds map/own.bin: its next-page pointer now points past the file.
        var data = try Data(contentsOf: dbURL)
        let needle = Data(StoreFixtures.bytes(400_000, seed: 1)[200_000..<200_064])
        let at = try #require(data.firstRange(of: needle)?.lowerBound)
        let page = at / 65_536 * 65_536
        data.replaceSubrange(page..<page + 4, with: [0x7f, 0xff, 0xff, 0xff])
        try data.write(to: dbURL)

        let store = try PackStore(directory: dir.path("store"))
        let report = try store.verify(server: server, tour: "demo")
        #expect(report.damaged.map(\.path) == ["map/own.bin"])
        #expect(report.damaged.first?.problem.contains("cannot be read") == true, "\(report.damaged)")
        #expect(!(try store.integrityCheck()).isEmpty, "integrity_check sees the broken page chain")
    }

    @Test func trustedKeysArePinnedPerServer() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let k1 = try Ed25519PrivateKey().publicKey
        let k2 = try Ed25519PrivateKey().publicKey
        #expect(try store.trust(k1, server: "https://a"))
        #expect(try !store.trust(k1, server: "https://a"), "pinning twice is a no-op")
        #expect(try store.trust(k2, server: "https://a"))
        #expect(try store.trust(k2, server: "https://b"))
        #expect(Set(try store.trustedKeys(server: "https://a")) == [k1, k2])
        #expect(try store.revoke(k1, server: "https://a"))
        #expect(try !store.revoke(k1, server: "https://a"))
        #expect(try store.trustedKeys(server: "https://a") == [k2])
        #expect(try store.trustedKeys().count == 2)
    }

    @Test func twoConnectionsShareOneStore() throws {
        let dir = try TemporaryDirectory()
        let first = try PackStore(directory: dir.path("store"))
        let second = try PackStore(directory: dir.path("store"))
        try first.commit(archive: StoreFixtures.archive(in: dir, version: 1, seed: 1).url, server: server, tour: "demo")
        #expect(try second.installedVersion(server: server, tour: "demo") == 1)
        // A reader opened before a commit keeps seeing its version.
        let reader = try second.openPack(server: server, tour: "demo")
        try first.commit(archive: StoreFixtures.archive(in: dir, version: 2, seed: 2).url, server: server, tour: "demo")
        #expect(reader.manifest.version == 1)
        #expect(try reader.data(at: "map/own.bin") == Data(StoreFixtures.bytes(400_000, seed: 1)))
        #expect(try second.openPack(server: server, tour: "demo").manifest.version == 2)
    }

    @Test func newerSchemaIsRefused() throws {
        let dir = try TemporaryDirectory()
        _ = try PackStore(directory: dir.path("store"))
        let db = try Database(path: dir.path("store").appendingPathComponent("store.sqlite").path)
        try db.execute("PRAGMA user_version=99")
        #expect(throws: StoreError.newerSchema(found: 99, supported: 1)) { try PackStore(directory: dir.path("store")) }
    }

    @Test func databaseIsInWALModeWithIncrementalVacuum() throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let db = try Database(path: store.databaseURL.path)
        #expect(try db.scalar("PRAGMA journal_mode")?.text == "wal")
        #expect(try db.scalar("PRAGMA auto_vacuum")?.integer == 2)
        #expect(try db.scalar("PRAGMA user_version")?.integer == 1)
    }
}

@Suite struct StoreLocationTests {
    @Test func precedence() throws {
        let env = ["VPSPACK_STORE": "/env/store", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]
        #expect(try StoreLocation.resolve(explicit: "/opt/s", environment: env).path == "/opt/s")
        #expect(try StoreLocation.resolve(explicit: nil, environment: env).path == "/env/store")
        #expect(try StoreLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"]).path == "/xdg/vpspack")
        #expect(try StoreLocation.resolve(explicit: nil, environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/vpspack")
        #expect(try StoreLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).path == "/home/u/.local/share/vpspack")
        #expect(try StoreLocation.resolve(explicit: nil, environment: ["VPSPACK_STORE": "", "HOME": "/home/u"]).path == "/home/u/.local/share/vpspack")
        #expect(throws: StoreError.self) { try StoreLocation.resolve(explicit: nil, environment: [:]) }
    }
}

@Suite struct DatabaseWrapperTests {
    @Test func failedTransactionRollsBackAndRethrowsTheFirstError() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite").path)
        try db.setUpWAL()
        try db.execute("CREATE TABLE t(x INTEGER UNIQUE)")
        struct Boom: Error, Equatable {}
        #expect(throws: Boom()) {
            try db.inTransaction(.immediate) {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t")?.integer == 0)
        #expect(!db.isInTransaction)
        #expect {
            try db.inTransaction { try db.run("INSERT INTO t VALUES (1), (1)") }
        } throws: { error in
            (error as? DatabaseError)?.resultCode == 2067 // SQLITE_CONSTRAINT_UNIQUE
        }
    }

    @Test func errorsCarryTheSQL() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite").path)
        #expect {
            try db.run("SELECT * FROM missing")
        } throws: { error in
            guard let e = error as? DatabaseError else { return false }
            return e.sql == "SELECT * FROM missing" && e.message.contains("no such table") && e.primaryCode == DatabaseError.error
        }
    }
}
