import Foundation
import PackFormat
import Testing
import VPSCrypto

/// The store commands, run as a user runs them: the built binary, its stdout, stderr and exit status.
@Suite struct StoreCommandTests {
    static let commands = ["pack", "offer", "download", "list", "inspect", "verify", "remove", "attachment"]

    @Test(arguments: commands)
    func helpGoesToStdoutWithExitZero(command: String) throws {
        let scene = try StoreScene()
        let result = try scene.vpspack(command, "--help")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: vpspack \(command)"), "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: commands)
    func unknownOptionIsAUsageError(command: String) throws {
        let scene = try StoreScene()
        let result = try scene.vpspack(command, "--no-such-option")
        #expect(result.status == 64)
        #expect(result.stderr.contains("vpspack \(command):"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func downloadListInspectVerifyAttachmentRemove() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        let attachment = scene.root.appendingPathComponent("nav.json")
        try Data("{\"nodes\":[1,2]}".utf8).write(to: attachment)

        let offer = try scene.vpspack("offer", "--server", "site", "--tour", "demo", "--allow-unsigned", "--json")
        #expect(offer.status == 0, "\(offer.stderr)")
        #expect(try offer.json()["status"] as? String == "not-installed")
        #expect(try offer.json()["version"] as? Int == 1)

        let download = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned", "--attach", attachment.path)
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("installed tour demo version 1"), "\(download.stdout)")

        // The same server spelt differently is the same server.
        let again = try scene.vpspack("download", "--server", "file://" + scene.site.path + "/", "--tour", "demo", "--allow-unsigned")
        #expect(again.status == 0)
        #expect(again.stdout.contains("already up to date (version 1)"), "\(again.stdout)")

        let list = try scene.vpspack("list", "--json")
        let packs = try #require(try list.json()["packs"] as? [[String: Any]])
        #expect(packs.count == 1)
        #expect(packs.first?["server"] as? String == URL(fileURLWithPath: scene.site.resolvingSymlinksInPath().path, isDirectory: false).absoluteString)
        #expect(packs.first?["version"] as? Int == 1)
        let text = try scene.vpspack("list")
        #expect(text.stdout.contains("demo") && text.stdout.contains("TOUR"))

        let inspect = try scene.vpspack("inspect", "--server", "site", "--tour", "demo", "--json")
        let object = try inspect.json()
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["attachments/tags.json", "map/points.bin", "map/shared.bin"])
        #expect((object["attachments"] as? [[String: Any]])?.first?["name"] as? String == "nav.json")
        let inspectText = try scene.vpspack("inspect", "--server", "site", "--tour", "demo")
        #expect(inspectText.stdout.contains("map/points.bin") && inspectText.stdout.contains("nav.json"))

        let verify = try scene.vpspack("verify", "--server", "site", "--tour", "demo")
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("ok: tour demo version 1"))

        let host = try scene.vpspack("attachment", "--server", "site", "--tour", "demo", "nav.json")
        #expect(host.status == 0)
        #expect(host.stdoutData == Data("{\"nodes\":[1,2]}".utf8))
        let own = try scene.vpspack("attachment", "--server", "site", "--tour", "demo", "tags.json")
        #expect(own.stdoutData == Data("{\"tags\":[1]}".utf8))
        let none = try scene.vpspack("attachment", "--server", "site", "--tour", "demo", "nope.json")
        #expect(none.status == 64)
        #expect(none.stderr.contains("no attachment named 'nope.json'"))

        let remove = try scene.vpspack("remove", "--server", "site", "--tour", "demo", "--json")
        #expect(remove.status == 0, "\(remove.stderr)")
        let removed = try remove.json()
        let before = try #require(removed["storeBytesBefore"] as? Int)
        let after = try #require(removed["storeBytes"] as? Int)
        #expect(after < before, "remove frees space: \(before) -> \(after)")
        #expect(try scene.installedVersion() == nil)
    }

    @Test(arguments: [
        ["verify", "--server", "site", "--tour", "demo"],
        ["inspect", "--server", "site", "--tour", "demo"],
        ["remove", "--server", "site", "--tour", "demo"],
        ["attachment", "--server", "site", "--tour", "demo", "tags.json"],
    ])
    func commandOnATourNotDownloadedExitsThree(arguments: [String]) throws {
        let scene = try StoreScene()
        let result = try StoreCLI.run(arguments, in: scene.root, environment: ["VPSPACK_STORE": scene.store.path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("not downloaded"), "\(result.stderr)")
        #expect(result.stderr.contains("vpspack download --server"), "the hint to run download: \(result.stderr)")
    }

    @Test func storeOptionWinsOverTheEnvironment() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        let other = scene.root.appendingPathComponent("other-store")
        let result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned", "--store", other.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: other.appendingPathComponent("store.sqlite").path))
        #expect(try scene.installedVersion() == nil, "the store of VPSPACK_STORE was not used")
    }

    @Test func unsignedOfferIsRefusedWithoutAllowUnsigned() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1)
        let result = try scene.vpspack("download", "--server", "site", "--tour", "demo")
        #expect(result.status == 65)
        #expect(result.stderr.contains("unsigned"), "\(result.stderr)")
        #expect(try scene.installedVersion() == nil)
    }

    @Test func refusedOffersLeaveTheInstalledVersion() throws {
        let scene = try StoreScene()
        try scene.publish(version: 2)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)

        // Rollback: the server now offers version 1.
        try scene.publish(version: 1)
        var result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(result.status == 65)
        #expect(result.stderr.contains("rollback"), "\(result.stderr)")

        // Expired.
        try scene.publish(version: 3, expires: Date().addingTimeInterval(-60))
        result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(result.status == 65)
        #expect(result.stderr.contains("expired"), "\(result.stderr)")

        // An offer for another tour.
        try scene.writeOffer(tour: "demo", version: 3, archive: "demo-3.vpspack", offeredTour: "elsewhere")
        result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(result.status == 65)
        #expect(result.stderr.contains("tour 'elsewhere'"), "\(result.stderr)")

        // An archive whose hash differs from the offer.
        try scene.writeOffer(tour: "demo", version: 3, archive: "demo-3.vpspack", sha256: String(repeating: "0", count: 64))
        result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(result.status == 65)
        #expect(result.stderr.contains("SHA-256"), "\(result.stderr)")

        #expect(try scene.installedVersion() == 2)
        #expect(try scene.verifyAll().ok)
    }

    @Test func serverWithoutTheTourExits69() throws {
        let scene = try StoreScene()
        try FileManager.default.createDirectory(at: scene.site, withIntermediateDirectories: true)
        let result = try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned")
        #expect(result.status == 69)
        #expect(result.stderr.contains("tours/demo/offer.json"), "\(result.stderr)")
    }

    @Test func httpServerThatIsDownIsUnavailable() throws {
        let scene = try StoreScene()
        let result = try scene.vpspack("offer", "--server", "http://127.0.0.1:9", "--tour", "demo")
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot connect to http://127.0.0.1:9/tours/demo/offer.json"), "\(result.stderr)")
    }

    @Test func verifyNamesTheFileAlteredInsideTheDatabase() throws {
        let scene = try StoreScene()
        try scene.publish(version: 1, size: 300_000)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        var database = try Data(contentsOf: scene.databaseFile)
        let needle = Data(StoreScene.bytes(300_000, seed: 1)[150_000..<150_048])
        let range = try #require(database.firstRange(of: needle), "map/points.bin is stored in store.sqlite")
        database[range.lowerBound + 10] ^= 0x01
        try database.write(to: scene.databaseFile)

        let text = try scene.vpspack("verify", "--server", "site", "--tour", "demo")
        #expect(text.status == 1)
        #expect(text.stderr.contains("map/points.bin of tour 'demo'"), "\(text.stderr)")
        #expect(text.stderr.contains("damaged"))
        #expect(!text.stderr.contains("map/shared.bin"))

        let json = try scene.vpspack("verify", "--all", "--json")
        #expect(json.status == 1)
        let pack = try #require((try json.json()["packs"] as? [[String: Any]])?.first)
        #expect(pack["ok"] as? Bool == false)
        #expect((pack["damaged"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == ["map/points.bin"])

        // Downloading again cannot help while the same version is installed, but remove + download restores it.
        #expect(try scene.vpspack("remove", "--server", "site", "--tour", "demo").status == 0)
        #expect(try scene.vpspack("download", "--server", "site", "--tour", "demo", "--allow-unsigned").status == 0)
        #expect(try scene.verifyAll().ok)
    }

    @Test func verifyArchiveForCI() throws {
        let scene = try StoreScene()
        let archive = try scene.publish(version: 1)
        let good = try scene.vpspack("verify", archive.path, "--json")
        #expect(good.status == 0)
        #expect(try good.json()["ok"] as? Bool == true)

        var bytes = try Data(contentsOf: archive)
        bytes = bytes.prefix(bytes.count * 2 / 3)
        try bytes.write(to: archive)
        let bad = try scene.vpspack("verify", archive.path)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains(archive.path), "\(bad.stderr)")
        let inspect = try scene.vpspack("inspect", archive.path)
        #expect(inspect.status == 65)
    }

    @Test func packWritesGeoreferenceAndCreatedIntoTheManifest() throws {
        let scene = try StoreScene()
        let src = scene.root.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src.appendingPathComponent("map"), withIntermediateDirectories: true)
        try Data("points".utf8).write(to: src.appendingPathComponent("map/points.bin"))
        let packed = try scene.vpspack("pack", src.path, "-o", "g.vpspack", "--tour", "geo", "--version", "7",
                                       "--georeference", "48.8584,2.2945,35.5,90", "--created", "2026-11-30T19:00:00Z", "--json")
        #expect(packed.status == 0, "\(packed.stderr)")
        let inspect = try scene.vpspack("inspect", "g.vpspack", "--json")
        let object = try inspect.json()
        #expect(object["version"] as? Int == 7 && object["tour"] as? String == "geo")
        #expect(object["created"] as? String == "2026-11-30T19:00:00Z")
        let geo = try #require(object["georeference"] as? [String: Any])
        #expect(geo["latitude"] as? Double == 48.8584 && geo["heading"] as? Double == 90)
        let bad = try scene.vpspack("pack", src.path, "-o", "h.vpspack", "--tour", "geo", "--version", "7", "--georeference", "91,0,0,0")
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("latitude"), "\(bad.stderr)")
        let zero = try scene.vpspack("pack", src.path, "-o", "h.vpspack", "--tour", "geo", "--version", "0")
        #expect(zero.status == 64)
    }

    @Test func packRefusesAFolderWithStrayFiles() throws {
        let scene = try StoreScene()
        let src = scene.root.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src.appendingPathComponent("map"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: src.appendingPathComponent("map/a.bin"))
        try Data("x".utf8).write(to: src.appendingPathComponent("README"))
        let result = try scene.vpspack("pack", src.path, "-o", "x.vpspack", "--tour", "t", "--version", "1")
        #expect(result.status == 74)
        #expect(result.stderr.contains("README"), "\(result.stderr)")
        let missing = try scene.vpspack("pack", src.path, "--tour", "t", "--version", "1")
        #expect(missing.status == 64)
    }
}
