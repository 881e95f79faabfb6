import Foundation
import PackFormat
import PackTransport
import Testing
import VPSCrypto
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `vpspack download` over HTTP, end to end through the built binary: version 1 is
/// installed, then version 2 meets a fault. Every case checks the exit status, the
/// message, the installed version afterwards and that `verify --all` stays clean.
@Suite(.serialized)
struct NetworkEndToEndTests {
    /// A server with tour demo: offer.json gives version 1 the first time, version 2 after;
    /// version 1's archive is served properly, version 2's through `v2`.
    func twoVersionServer(
        _ scene: NetworkScene, v2Size: Int = 400_000,
        v2: @escaping @Sendable (FaultServer.Request, [UInt8]) -> FaultServer.Reply
    ) throws -> FaultServer {
        let a1 = try scene.archive(version: 1, size: 50_000)
        let a2 = try scene.archive(version: 2, size: v2Size)
        let offer1 = Array(try scene.offer(for: a1, version: 1))
        let offer2 = Array(try scene.offer(for: a2, version: 2))
        let bytes1 = Array(try Data(contentsOf: a1))
        let bytes2 = Array(try Data(contentsOf: a2))
        return try FaultServer { request in
            if request.path.hasSuffix("/offer.json") {
                return .respond(status: 200, headers: [], body: request.pathIndex == 0 ? offer1 : offer2, cutAfter: nil)
            }
            if request.path.hasSuffix("/demo-1.vpspack") { return FaultServer.file(bytes1, etag: "\"v1\"", for: request) }
            if request.path.hasSuffix("/demo-2.vpspack") { return v2(request, bytes2) }
            return .respond(status: 404, headers: [], body: Array("no".utf8), cutAfter: nil)
        }
    }

    /// Pins the key, installs version 1 and checks it.
    func installVersionOne(_ scene: NetworkScene, _ server: FaultServer) throws {
        try scene.trust(server.baseURL)
        let first = try scene.vpspack("download", "--server", server.baseURL.absoluteString, "--tour", "demo")
        try #require(first.status == 0, "installing version 1: \(first.stderr)")
        #expect(try scene.installedVersion() == 1)
    }

    /// How every case that recovers must end: exit 0, version 2 installed, `verify --all` clean.
    func expectInstalledVersionTwo(_ run: Run, _ scene: NetworkScene, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(run.status == 0, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(try scene.installedVersion() == 2, sourceLocation: sourceLocation)
        #expect(try scene.verifyIsClean(), sourceLocation: sourceLocation)
    }

    /// How every failure case must end: its exit status, each message on stderr,
    /// version 1 still installed and `verify --all` clean.
    func expectRefused(
        _ run: Run, _ scene: NetworkScene, status: Int32, saying messages: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(run.status == status, "\(run.stdout) \(run.stderr)", sourceLocation: sourceLocation)
        for message in messages {
            #expect(run.stderr.contains(message), "\(run.stderr)", sourceLocation: sourceLocation)
        }
        #expect(try scene.installedVersion() == 1, sourceLocation: sourceLocation)
        #expect(try scene.verifyIsClean(), sourceLocation: sourceLocation)
    }

    func download(_ scene: NetworkScene, _ server: FaultServer, _ extra: String...) throws -> Run {
        finishDownload(scene, try scene.start(["download", "--server", server.baseURL.absoluteString, "--tour", "demo"] + extra))
    }

    func finishDownload(_ scene: NetworkScene, _ started: (Process, URL, URL)) -> Run {
        scene.finish(started)
    }

    func partialFiles(_ scene: NetworkScene) -> [URL] {
        let dir = scene.store.appendingPathComponent("downloads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".partial") }.map { dir.appendingPathComponent($0) }
    }

    @Test func droppedMidBodyResumesAndInstalls() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            FaultServer.file(bytes, etag: "\"v2\"", for: request, cutAfter: request.pathIndex == 0 ? 150_000 : nil)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("installed tour demo version 2"))
        #expect(try scene.installedVersion() == 2)
        #expect(try scene.verifyIsClean())
        let resumed = server.requests.filter { $0.path.hasSuffix("/demo-2.vpspack") }.last
        #expect(resumed?.headers["range"] == "bytes=150000-")
        #expect(resumed?.headers["if-range"] == "\"v2\"")
    }

    @Test func serverIgnoringRangeRestartsFromZero() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            .respond(status: 200, headers: [("ETag", "\"v2\"")], body: bytes, cutAfter: request.pathIndex == 0 ? 100_000 : nil)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectInstalledVersionTwo(run, scene)
    }

    @Test func wrongBytesInstallNothingAndKeepTheOldVersion() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            var altered = bytes
            altered[altered.count / 2] ^= 0xff
            return FaultServer.file(altered, etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectRefused(run, scene, status: 65, saying: "SHA-256")
        #expect(partialFiles(scene).isEmpty, "a complete archive with the wrong hash is discarded, not resumed")
    }

    @Test func archiveShorterThanOfferedIsRefused() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            FaultServer.file(Array(bytes[0..<(bytes.count / 2)]), etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectRefused(run, scene, status: 65, saying: "ends at byte")
        #expect(partialFiles(scene).isEmpty)
    }

    @Test func serverErrorThenSuccessIsRetried() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            request.pathIndex == 0
                ? .respond(status: 500, headers: [], body: Array("<html>oops</html>".utf8), cutAfter: nil)
                : FaultServer.file(bytes, etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectInstalledVersionTwo(run, scene)
    }

    @Test func stallingServerTimesOutAndKeepsTheOldVersion() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { _, _ in .stallAfterHeaders(status: 200, headers: [("ETag", "\"v2\"")]) }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let started = try scene.start(["download", "--server", server.baseURL.absoluteString, "--tour", "demo"],
                                      environment: ["VPSPACK_HTTP_STALL_TIMEOUT": "1", "VPSPACK_HTTP_ATTEMPTS": "2"])
        let run = scene.finish(started)
        try expectRefused(run, scene, status: 69, saying: "timed out", "gave up after 2 attempts")
    }

    @Test func oversizedOfferIsRefused() throws {
        let scene = try NetworkScene()
        let a1 = try scene.archive(version: 1, size: 50_000)
        let offer1 = Array(try scene.offer(for: a1, version: 1))
        let bytes1 = Array(try Data(contentsOf: a1))
        let server = try FaultServer { request in
            if request.path.hasSuffix("/offer.json") {
                return request.pathIndex == 0
                    ? .respond(status: 200, headers: [], body: offer1, cutAfter: nil)
                    : .respond(status: 200, headers: [], body: Array(repeating: 0x20, count: 100_000), cutAfter: nil)
            }
            return FaultServer.file(bytes1, etag: "\"v1\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectRefused(run, scene, status: 65, saying: "65536-byte limit")
    }

    @Test func redirectLoopIsRefused() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, _ in
            .respond(status: 302, headers: [("Location", request.path)], body: [], cutAfter: nil)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectRefused(run, scene, status: 69, saying: "redirect loop")
    }

    @Test func etagChangeBetweenAttemptsRestarts() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene) { request, bytes in
            // The same bytes republished: a new ETag, so the held part cannot be trusted.
            request.pathIndex == 0
                ? FaultServer.file(bytes, etag: "\"first\"", for: request, cutAfter: 120_000)
                : FaultServer.file(bytes, etag: "\"second\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let run = try download(scene, server)
        try expectInstalledVersionTwo(run, scene)
        let archiveRequests = server.requests.filter { $0.path.hasSuffix("/demo-2.vpspack") }
        #expect(archiveRequests.count == 2)
        #expect(archiveRequests.last?.headers["if-range"] == "\"first\"", "the resume asked with the old validator and got the whole file")
    }

    @Test func fullDiskIsReportedAndKeepsTheOldVersion() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene, v2Size: 3_000_000) { request, bytes in
            FaultServer.file(bytes, etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        // Files may not grow past 1 MiB in this process: the partial download hits the cap.
        let run = try scene.vpspackWithWriteCap(kilobytes: 1024, "download", "--server", server.baseURL.absoluteString, "--tour", "demo")
        try expectRefused(run, scene, status: 74, saying: "cannot write the partial download", "File too large: a file-size limit was reached")
        // With room again, the same command resumes and installs.
        let again = try download(scene, server)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try scene.installedVersion() == 2)
    }

    @Test func ctrlCKeepsAResumablePartial() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene, v2Size: 1_000_000) { request, bytes in
            request.pathIndex == 0
                ? .paced(status: 200, headers: [("ETag", "\"v2\"")], body: bytes, chunk: 16_384, delay: 0.02)
                : FaultServer.file(bytes, etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let started = try scene.start(["download", "--server", server.baseURL.absoluteString, "--tour", "demo"])
        let deadline = Date().addingTimeInterval(20)
        var held: Int64 = 0
        while Date() < deadline, held < 100_000 {
            Thread.sleep(forTimeInterval: 0.02)
            held = partialFiles(scene).compactMap { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber)?.int64Value }.max() ?? 0
        }
        try #require(held >= 100_000, "the partial download never grew")
        kill(started.0.processIdentifier, SIGINT)
        let run = scene.finish(started)
        try expectRefused(run, scene, status: 130, saying: "interrupted", "run the same command again to resume")
        let partialSize = partialFiles(scene).compactMap { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber)?.int64Value }.max()
        let kept = try #require(partialSize)
        #expect(kept >= 100_000 && kept < 1_000_000)

        let resumed = try download(scene, server)
        try expectInstalledVersionTwo(resumed, scene)
        let last = server.requests.filter { $0.path.hasSuffix("/demo-2.vpspack") }.last
        #expect(last?.headers["range"]?.hasPrefix("bytes=") == true && last?.headers["range"] != "bytes=0-")
        #expect(last?.headers["if-range"] == "\"v2\"")
    }

    @Test func progressIsRedrawnOnATerminalAndPlainOtherwise() throws {
        let scene = try NetworkScene()
        let server = try twoVersionServer(scene, v2Size: 600_000) { request, bytes in
            .paced(status: 200, headers: [("ETag", "\"v2\"")], body: bytes, chunk: 32_768, delay: 0.03)
        }
        defer { server.stop() }
        try installVersionOne(scene, server)
        let plain = try download(scene, server)
        #expect(!plain.stdout.contains("\u{1b}[K"), "no terminal control codes in a log: \(plain.stdout)")
        #expect(plain.stdout.contains("demo: "), "\(plain.stdout)")
        #expect(plain.stdout.contains("(100%)"), "\(plain.stdout)")

        // Remove and download again, now on a terminal.
        #expect(try scene.vpspack("remove", "--server", server.baseURL.absoluteString, "--tour", "demo").status == 0)
        let terminal = try scene.vpspackOnTerminal("download", "--server", server.baseURL.absoluteString, "--tour", "demo")
        #expect(terminal.status == 0, "\(terminal.stdout)")
        let redraws = terminal.stdout.components(separatedBy: "\r\u{1b}[K").count - 1
        #expect(redraws >= 2, "the line is redrawn in place: \(terminal.stdout)")
        #expect(terminal.stdout.contains("/s"), "a rate is shown: \(terminal.stdout)")
        #expect(try scene.installedVersion() == 2)
    }

    @Test func unreachableServersFailClearly() throws {
        let scene = try NetworkScene()
        let port = try Nginx.freePort()
        let refused = try scene.vpspack("download", "--server", "http://127.0.0.1:\(port)", "--tour", "demo")
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("cannot connect"), "\(refused.stderr)")
        let dns = try scene.vpspack("download", "--server", "http://no-such-host.invalid", "--tour", "demo")
        #expect(dns.status == 69)
        #expect(dns.stderr.contains("DNS lookup failed"), "\(dns.stderr)")
        #expect(try scene.installedVersion() == nil)
    }
}

/// keygen, publish, trust and download against a real nginx serving the published site.
@Suite(.serialized)
struct PublishToNginxTests {
    @Test func publishTrustDownloadUpgradeAndRefusals() throws {
        let scene = try NetworkScene()
        let keyFile = scene.root.appendingPathComponent("producer.key").path
        let keygen = try scene.vpspack("keygen", "--out", keyFile)
        try #require(keygen.status == 0, "\(keygen.stderr)")
        let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(publicKey.count == 64)

        let v1 = try scene.archive(version: 1, size: 100_000)
        let published = try scene.vpspack("publish", v1.path, "--site", scene.site.path, "--key", keyFile, "--expires", "2d")
        try #require(published.status == 0, "\(published.stderr)")
        let nginx = try Nginx(root: scene.site)
        defer { nginx.stop() }
        let server = nginx.baseURL.absoluteString

        // Not pinned yet: refused, nothing installed.
        let unpinned = try scene.vpspack("download", "--server", server, "--tour", "demo")
        #expect(unpinned.status == 65)
        #expect(unpinned.stderr.contains("not pinned"), "\(unpinned.stderr)")
        #expect(try scene.installedVersion() == nil)

        #expect(try scene.vpspack("trust", "--server", server, "--key", publicKey).status == 0)
        let list = try scene.vpspack("trust", "--list", "--json")
        #expect(list.stdout.contains(publicKey))

        let first = try scene.vpspack("download", "--server", server, "--tour", "demo", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        let events = first.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.contains { $0["event"] as? String == "progress" && $0["bytes"] as? Int == $0["total"] as? Int })
        #expect(events.last?["event"] as? String == "result")
        #expect(events.last?["status"] as? String == "installed")

        let upToDate = try scene.vpspack("download", "--server", server, "--tour", "demo")
        #expect(upToDate.status == 0)
        #expect(upToDate.stdout.contains("already up to date"))

        let v2 = try scene.archive(version: 2, size: 120_000)
        #expect(try scene.vpspack("publish", v2.path, "--site", scene.site.path, "--key", keyFile).status == 0)
        let second = try scene.vpspack("download", "--server", server, "--tour", "demo")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try scene.installedVersion() == 2)

        // publish refuses to go back; a forged older offer on the site is refused by the client.
        let back = try scene.vpspack("publish", v1.path, "--site", scene.site.path, "--key", keyFile)
        #expect(back.status == 65)
        #expect(back.stderr.contains("rollback"), "\(back.stderr)")
        let producer = try SigningKeyFile.read(URL(fileURLWithPath: keyFile))
        let tourDir = scene.site.appendingPathComponent("tours/demo")
        let v1Bytes = try Data(contentsOf: tourDir.appendingPathComponent("demo-1.vpspack"))
        func writeOffer(version: Int, expires: Date) throws {
            let offer = Offer(tour: "demo", version: version, created: Date(), expires: expires, format: 1,
                              archive: .init(path: "demo-1.vpspack", length: Int64(v1Bytes.count), sha256: SHA256.hash(v1Bytes).hex))
            try OfferEnvelope(offer: offer, signedBy: [producer]).encoded().write(to: tourDir.appendingPathComponent("offer.json"))
        }
        try writeOffer(version: 1, expires: Date().addingTimeInterval(3600))
        let rollback = try scene.vpspack("download", "--server", server, "--tour", "demo")
        #expect(rollback.status == 65)
        #expect(rollback.stderr.contains("rollback refused"), "\(rollback.stderr)")
        try writeOffer(version: 3, expires: Date().addingTimeInterval(-60))
        let expired = try scene.vpspack("download", "--server", server, "--tour", "demo")
        #expect(expired.status == 65)
        #expect(expired.stderr.contains("expired"), "\(expired.stderr)")
        #expect(try scene.installedVersion() == 2)
        #expect(try scene.verifyIsClean())

        let missing = try scene.vpspack("download", "--server", server, "--tour", "elsewhere")
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("has no offer for tour 'elsewhere'"), "\(missing.stderr)")

        #expect(try scene.vpspack("trust", "--server", server, "--revoke", publicKey).status == 0)
        #expect(try scene.vpspack("trust", "--server", server, "--revoke", publicKey).status == 1)
    }
}

/// Refusals of the producer and trust commands, through the binary.
struct ProducerCommandTests {
    @Test func keygenNeverOverwritesAKey() throws {
        let scene = try NetworkScene()
        let path = scene.root.appendingPathComponent("k.key").path
        let first = try scene.vpspack("keygen", "--out", path, "--json")
        #expect(first.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        #expect((object?["publicKey"] as? String)?.count == 64)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = try scene.vpspack("keygen", "--out", path)
        #expect(second.status == 74)
        #expect(second.stderr.contains("refusing to overwrite"), "\(second.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func publishRefusesADamagedArchiveAndBadOptions() throws {
        let scene = try NetworkScene()
        let keyPath = scene.root.appendingPathComponent("k.key").path
        #expect(try scene.vpspack("keygen", "--out", keyPath).status == 0)
        let archive = try scene.archive(version: 1, size: 100_000)
        var bytes = try Data(contentsOf: archive)
        bytes[bytes.count / 2] ^= 0x55
        let damaged = scene.root.appendingPathComponent("damaged.vpspack")
        try bytes.write(to: damaged)
        let run = try scene.vpspack("publish", damaged.path, "--site", scene.site.path, "--key", keyPath)
        #expect(run.status == 65)
        #expect(run.stderr.contains("cannot be published"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scene.site.appendingPathComponent("tours/demo/offer.json").path))

        let badSpan = try scene.vpspack("publish", archive.path, "--site", scene.site.path, "--key", keyPath, "--expires", "soon")
        #expect(badSpan.status == 64)
        let notAKey = try scene.vpspack("publish", archive.path, "--site", scene.site.path, "--key", archive.path)
        #expect(notAKey.status == 65)
        #expect(notAKey.stderr.contains("is not a vpspack key file"), "\(notAKey.stderr)")
    }

    @Test func trustRefusesMalformedKeysAndMixedActions() throws {
        let scene = try NetworkScene()
        let short = try scene.vpspack("trust", "--server", "http://example.com", "--key", "abcd")
        #expect(short.status == 64)
        #expect(short.stderr.contains("64 hex digits"), "\(short.stderr)")
        let both = try scene.vpspack("trust", "--list", "--server", "http://example.com", "--key", String(repeating: "a", count: 64))
        #expect(both.status == 64)
        let none = try scene.vpspack("trust", "--list")
        #expect(none.status == 0)
        #expect(none.stdout.contains("no key is pinned"))
    }
}
