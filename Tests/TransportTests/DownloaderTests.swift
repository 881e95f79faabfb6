import Foundation
import TestSupport
import PackFormat
import PackStore
import PackTransport
import Testing
import VPSCrypto

/// A directory server that can drop the connection after some bytes, and counts what it sends.
final class FlakyDirectoryTransport: Transport, @unchecked Sendable {
    let inner: DirectoryTransport
    /// Fail with `.unavailable` once this many body bytes were sent in one stream (nil: never).
    var dropAfter: Int64?
    /// Fail with `.unavailable` after the whole body was sent.
    var failAtEnd = false
    private(set) var bytesSent: Int64 = 0
    private(set) var requestedOffsets: [Int64] = []

    init(root: URL, dropAfter: Int64? = nil) {
        inner = DirectoryTransport(root: root)
        self.dropAfter = dropAfter
    }

    func fetch(_ path: String, limit: Int64) throws(TransportError) -> Data {
        try inner.fetch(path, limit: limit)
    }

    func stream(
        _ path: String, from offset: Int64, ifRange: String?, maxLength: Int64,
        restart: (StreamResponse) throws -> Void, sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse {
        requestedOffsets.append(offset)
        var sent: Int64 = 0
        let response = try inner.stream(path, from: offset, ifRange: ifRange, maxLength: maxLength, restart: restart) { bytes in
            if let limit = dropAfter, sent + Int64(bytes.count) > limit {
                let part = Int(limit - sent)
                try sink(UnsafeRawBufferPointer(rebasing: bytes[0..<part]))
                bytesSent += Int64(part)
                throw TransportError.unavailable("connection reset after \(limit) bytes")
            }
            try sink(bytes)
            sent += Int64(bytes.count)
            bytesSent += Int64(bytes.count)
        }
        if failAtEnd { throw TransportError.unavailable("connection reset after the last byte") }
        return response
    }
}

final class DownloadScene {
    let root: URL
    var site: URL { root.appendingPathComponent("site") }
    let store: PackStore
    let server: ServerLocation

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("site"), withIntermediateDirectories: true)
        store = try PackStore(directory: root.appendingPathComponent("store"))
        server = try ServerLocation.parse(root.appendingPathComponent("site").path)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        TestBytes.pseudoRandom(count, seed: seed)
    }

    /// Publishes version `version` of tour "demo"; returns the archive's bytes.
    @discardableResult
    func publish(version: Int, size: Int = 3_000_000, keys: [Ed25519PrivateKey] = [], expires: Date = Date().addingTimeInterval(3600)) throws -> Data {
        let src = root.appendingPathComponent("src-\(version)")
        try FileManager.default.createDirectory(at: src.appendingPathComponent("map"), withIntermediateDirectories: true)
        try Data(Self.bytes(size, seed: UInt64(version))).write(to: src.appendingPathComponent("map/points.bin"))
        let dir = site.appendingPathComponent("tours/demo")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let name = "demo-\(version).vpspack"
        try PackArchiveWriter.write(folder: src, to: dir.appendingPathComponent(name), tour: "demo", version: version)
        let data = try Data(contentsOf: dir.appendingPathComponent(name))
        let offer = Offer(tour: "demo", version: version, created: Date(), expires: expires, format: 1,
                          archive: .init(path: name, length: Int64(data.count), sha256: SHA256.hash(data).hex))
        try OfferEnvelope(offer: offer, signedBy: keys).encoded().write(to: dir.appendingPathComponent("offer.json"))
        return data
    }

    func downloader(_ transport: any Transport) -> Downloader {
        Downloader(store: store, server: server, transport: transport)
    }
}

@Suite struct DownloaderTests {
    @Test func signedOfferFromAPinnedKeyIsAccepted() throws {
        let scene = try DownloadScene()
        let key = try Ed25519PrivateKey()
        try scene.publish(version: 1, keys: [key])
        try scene.store.trust(key.publicKey, server: scene.server.identity)
        let outcome = try scene.downloader(DirectoryTransport(root: scene.site)).download(tour: "demo", allowUnsigned: false)
        guard case .installed(let result, let offer) = outcome else { Issue.record("not installed: \(outcome)"); return }
        #expect(result.version == 1 && offer.version == 1)
        let info = try scene.store.info(server: scene.server.identity, tour: "demo")
        let stored = try OfferEnvelope.decode(try #require(info.offerEnvelope))
        #expect(stored.signatures.first?.keyid == key.publicKey.keyID, "the accepted offer is stored with the pack")
    }

    @Test func offerSignedByAnUnpinnedKeyIsRefused() throws {
        let scene = try DownloadScene()
        try scene.publish(version: 1, keys: [try Ed25519PrivateKey()])
        try scene.store.trust(try Ed25519PrivateKey().publicKey, server: scene.server.identity)
        #expect {
            try scene.downloader(DirectoryTransport(root: scene.site)).download(tour: "demo", allowUnsigned: false)
        } throws: { error in
            guard case DownloadError.offer(.untrustedKey) = error else { return false }
            return true
        }
        #expect(try scene.store.list().isEmpty)
    }

    @Test func alteredOfferFailsItsSignature() throws {
        let scene = try DownloadScene()
        let key = try Ed25519PrivateKey()
        try scene.publish(version: 1, keys: [key])
        try scene.store.trust(key.publicKey, server: scene.server.identity)
        let url = scene.site.appendingPathComponent("tours/demo/offer.json")
        var envelope = try OfferEnvelope.decode(Data(contentsOf: url))
        var offer = try Offer.decode(try #require(Data(base64Encoded: envelope.payload)))
        offer.version = 7
        envelope.payload = offer.encoded().base64EncodedString()
        try envelope.encoded().write(to: url)
        #expect(throws: DownloadError.offer(.badSignature(keyID: key.publicKey.keyID))) {
            try scene.downloader(DirectoryTransport(root: scene.site)).download(tour: "demo", allowUnsigned: false)
        }
    }

    @Test func droppedTransferResumesFromThePartialFile() throws {
        let scene = try DownloadScene()
        let archive = try scene.publish(version: 1, size: 3_000_000)
        let total = Int64(archive.count)
        let flaky = FlakyDirectoryTransport(root: scene.site, dropAfter: total / 2)
        #expect(throws: DownloadError.transport(.unavailable("connection reset after \(total / 2) bytes"))) {
            try scene.downloader(flaky).download(tour: "demo", allowUnsigned: true)
        }
        #expect(try scene.store.list().isEmpty)
        let downloads = try FileManager.default.contentsOfDirectory(atPath: scene.store.downloadsDirectory.path)
        #expect(downloads.contains { $0.hasSuffix(".partial") }, "the partial file is kept")

        let counting = FlakyDirectoryTransport(root: scene.site)
        var progress: [DownloadProgress] = []
        let outcome = try scene.downloader(counting).download(tour: "demo", allowUnsigned: true) { progress.append($0) }
        guard case .installed = outcome else { Issue.record("not installed"); return }
        #expect(counting.requestedOffsets == [total / 2])
        #expect(counting.bytesSent == total - total / 2, "only the missing half is fetched again")
        #expect(progress.last == DownloadProgress(bytes: total, total: total, resumedFrom: total / 2))
        #expect(try scene.store.verify(server: scene.server.identity, tour: "demo").isClean)
        let left = try FileManager.default.contentsOfDirectory(atPath: scene.store.downloadsDirectory.path)
        #expect(!left.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".json") }, "\(left)")
    }

    @Test func completePartialFileIsCommittedWithoutAnotherRequest() throws {
        let scene = try DownloadScene()
        try scene.publish(version: 1)
        let failing = FlakyDirectoryTransport(root: scene.site)
        failing.failAtEnd = true
        #expect(throws: DownloadError.transport(.unavailable("connection reset after the last byte"))) {
            try scene.downloader(failing).download(tour: "demo", allowUnsigned: true)
        }
        let counting = FlakyDirectoryTransport(root: scene.site)
        guard case .installed = try scene.downloader(counting).download(tour: "demo", allowUnsigned: true) else {
            Issue.record("not installed"); return
        }
        #expect(counting.requestedOffsets.isEmpty, "the archive was already whole in the partial file")
        #expect(try scene.store.verify(server: scene.server.identity, tour: "demo").isClean)
    }

    @Test func archiveReplacedOnTheServerRestartsFromZero() throws {
        let scene = try DownloadScene()
        let archive = try scene.publish(version: 1)
        let total = Int64(archive.count)
        #expect(throws: DownloadError.self) {
            try scene.downloader(FlakyDirectoryTransport(root: scene.site, dropAfter: total / 3)).download(tour: "demo", allowUnsigned: true)
        }
        // Same bytes, new file: the ETag (inode, mtime) changes, so If-Range fails and the body starts at 0.
        let path = scene.site.appendingPathComponent("tours/demo/demo-1.vpspack")
        try FileManager.default.removeItem(at: path)
        Thread.sleep(forTimeInterval: 0.01)
        try archive.write(to: path)
        let counting = FlakyDirectoryTransport(root: scene.site)
        _ = try scene.downloader(counting).download(tour: "demo", allowUnsigned: true)
        #expect(counting.requestedOffsets == [total / 3])
        #expect(counting.bytesSent == total, "the whole archive came again")
        #expect(try scene.store.verify(server: scene.server.identity, tour: "demo").isClean)
    }

    @Test func partialOfAnOlderOfferIsNotResumed() throws {
        let scene = try DownloadScene()
        let first = try scene.publish(version: 1)
        #expect(throws: DownloadError.self) {
            try scene.downloader(FlakyDirectoryTransport(root: scene.site, dropAfter: Int64(first.count / 2))).download(tour: "demo", allowUnsigned: true)
        }
        let second = try scene.publish(version: 2)
        let counting = FlakyDirectoryTransport(root: scene.site)
        _ = try scene.downloader(counting).download(tour: "demo", allowUnsigned: true)
        #expect(counting.requestedOffsets == [0])
        #expect(counting.bytesSent == Int64(second.count))
        #expect(try scene.store.installedVersion(server: scene.server.identity, tour: "demo") == 2)
    }

    @Test func equalVersionIsAlreadyUpToDateAndFetchesNothing() throws {
        let scene = try DownloadScene()
        try scene.publish(version: 4)
        _ = try scene.downloader(DirectoryTransport(root: scene.site)).download(tour: "demo", allowUnsigned: true)
        let counting = FlakyDirectoryTransport(root: scene.site)
        #expect(try scene.downloader(counting).download(tour: "demo", allowUnsigned: true) == .alreadyUpToDate(version: 4))
        #expect(counting.requestedOffsets.isEmpty)
    }

    @Test func expiredOfferIsRefusedByTheInjectedClock() throws {
        let scene = try DownloadScene()
        try scene.publish(version: 1, expires: Date().addingTimeInterval(60))
        let downloader = scene.downloader(DirectoryTransport(root: scene.site))
        downloader.now = { Date().addingTimeInterval(120) }
        #expect {
            try downloader.download(tour: "demo", allowUnsigned: true)
        } throws: { error in
            guard case DownloadError.offer(.expired) = error else { return false }
            return true
        }
    }

    @Test func oversizedOfferIsRefused() throws {
        let scene = try DownloadScene()
        let dir = scene.site.appendingPathComponent("tours/demo")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(repeating: 0x20, count: 70_000).write(to: dir.appendingPathComponent("offer.json"))
        #expect {
            try scene.downloader(DirectoryTransport(root: scene.site)).checkOffer(tour: "demo", allowUnsigned: true)
        } throws: { error in
            guard case DownloadError.transport(.tooLarge(_, let limit)) = error else { return false }
            return limit == 65_536
        }
    }

    @Test func invalidTourNameIsRefusedBeforeAnyFetch() throws {
        let scene = try DownloadScene()
        #expect(throws: DownloadError.self) {
            try scene.downloader(DirectoryTransport(root: scene.site)).checkOffer(tour: "../etc", allowUnsigned: true)
        }
    }
}

@Suite struct ServerLocationTests {
    @Test func directorySpellingsNameOneServer() throws {
        let base = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let a = try ServerLocation.parse("site", currentDirectory: base)
        let b = try ServerLocation.parse("./site/", currentDirectory: base)
        let c = try ServerLocation.parse("file://\(base)/site", currentDirectory: "/")
        let d = try ServerLocation.parse("\(base)/x/../site//", currentDirectory: "/")
        #expect(a.identity == "file://\(base)/site")
        #expect(Set([a.identity, b.identity, c.identity, d.identity]).count == 1)
        guard case .directory(let url) = a.kind else { Issue.record("not a directory"); return }
        #expect(url.path == "\(base)/site")
    }

    @Test func httpURLsAreCanonical() throws {
        let a = try ServerLocation.parse("HTTPS://Packs.Example.COM/venues/")
        #expect(a.identity == "https://packs.example.com/venues")
        guard case .http = a.kind else { Issue.record("not http"); return }
        #expect(try ServerLocation.parse("http://127.0.0.1:8080").identity == "http://127.0.0.1:8080")
    }

    @Test(arguments: ["", "ftp://x/y", "http://", "https://h/p?q=1", "https://u:p@h/", "file://relative/path"])
    func invalidLocationsAreRefused(text: String) {
        #expect(throws: DownloadError.self) { try ServerLocation.parse(text) }
    }

    @Test func httpServersGetTheHTTPTransport() throws {
        let transport = try makeTransport(for: ServerLocation.parse("https://example.com/packs/"))
        let http = try #require(transport as? HTTPTransport)
        #expect(http.url(for: "tours/demo/offer.json") == "https://example.com/packs/tours/demo/offer.json")
    }
}
