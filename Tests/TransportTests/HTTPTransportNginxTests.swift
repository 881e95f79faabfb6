import Foundation
import PackTransport
import Testing
import VPSCrypto

/// The HTTP transport against a real nginx on loopback serving a static site.
@Suite(.serialized)
final class HTTPTransportNginxTests {
    let site: URL
    let nginx: Nginx
    let archive = testBytes(700_000, seed: 7)
    let transport: HTTPTransport

    init() throws {
        site = try temporaryDirectory("vpspack-site")
        let tour = site.appendingPathComponent("tours/demo")
        try FileManager.default.createDirectory(at: tour, withIntermediateDirectories: true)
        try Data(archive).write(to: tour.appendingPathComponent("demo-1.vpspack"))
        try Data("{\"payloadType\":\"x\"}".utf8).write(to: tour.appendingPathComponent("offer.json"))
        try Data(testBytes(70_000)).write(to: tour.appendingPathComponent("big.json"))
        nginx = try Nginx(root: site)
        transport = HTTPTransport(baseURL: nginx.baseURL, configuration: fastConfiguration())
    }

    deinit {
        nginx.stop()
        try? FileManager.default.removeItem(at: site)
    }

    @Test func fetchesASmallFileWhole() throws {
        let data = try transport.fetch("tours/demo/offer.json", limit: 64 * 1024)
        #expect(String(decoding: data, as: UTF8.self) == "{\"payloadType\":\"x\"}")
    }

    @Test func refusesAnOfferLargerThanTheCap() {
        #expect(throws: TransportError.tooLarge(transport.url(for: "tours/demo/big.json"), limit: 64 * 1024)) {
            try transport.fetch("tours/demo/big.json", limit: 64 * 1024)
        }
    }

    @Test func missingFileIsNotFound() {
        let error = #expect(throws: TransportError.self) { try transport.fetch("tours/nowhere/offer.json", limit: 1024) }
        guard case .notFound(let message)? = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
        #expect(message.contains("HTTP 404"))
        #expect(message.contains("tours/nowhere/offer.json"))
    }

    @Test func forbiddenIsReportedWithItsStatus() {
        let error = #expect(throws: TransportError.self) { try transport.fetch("private/offer.json", limit: 1024) }
        guard case .forbidden(_, let status)? = error else {
            Issue.record("expected forbidden, got \(String(describing: error))")
            return
        }
        #expect(status == 403)
    }

    @Test func redirectLoopIsAProtocolViolation() {
        let error = #expect(throws: TransportError.self) { try transport.fetch("loop/offer.json", limit: 1024) }
        guard case .protocolViolation(let message)? = error else {
            Issue.record("expected protocolViolation, got \(String(describing: error))")
            return
        }
        #expect(message.contains("redirect loop"))
    }

    @Test func streamsAWholeArchiveAndReportsTheStrongETag() throws {
        let receiver = Receiver()
        let response = try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count))
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
        #expect(receiver.restarts.count == 1)
        #expect(receiver.restarts.first?.startOffset == 0)
        let etag = try #require(response.etag)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
    }

    @Test func resumesFromAPartialWithIfRange() throws {
        let first = Receiver()
        let response = try first.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count))
        let etag = try #require(response.etag)

        let held = Array(archive[0..<250_000])
        let receiver = Receiver(holding: held)
        let resumed = try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: etag, maxLength: Int64(archive.count))
        #expect(receiver.restarts.isEmpty, "a matching If-Range must give a 206 that continues the partial")
        #expect(resumed.startOffset == 250_000)
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
    }

    @Test func staleETagRestartsFromZero() throws {
        let receiver = Receiver(holding: Array(repeating: 0, count: 1000))
        try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: "\"stale-tag\"", maxLength: Int64(archive.count))
        #expect(receiver.restarts.count == 1)
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
    }

    @Test func partialWithoutValidatorRestartsFromZero() throws {
        let receiver = Receiver(holding: Array(archive[0..<1000]))
        try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count))
        #expect(receiver.restarts.count == 1)
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
    }

    @Test func completePartialAnswered416IsDone() throws {
        let first = Receiver()
        let etag = try #require(
            try first.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count)).etag)
        // A cap above the file size lets the request go out for bytes past the end.
        let receiver = Receiver(holding: archive)
        try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: etag, maxLength: Int64(archive.count) + 10)
        #expect(receiver.restarts.isEmpty)
        #expect(receiver.sinkCalls == 0)
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
    }

    @Test func partialLongerThanTheFileRestarts() throws {
        let first = Receiver()
        let etag = try #require(
            try first.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count)).etag)
        let receiver = Receiver(holding: archive + [1, 2, 3])
        try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: etag, maxLength: Int64(archive.count) + 10)
        #expect(receiver.restarts.count == 1)
        #expect(receiver.sha256 == SHA256.hash(archive).hex)
    }

    @Test func fileLongerThanExpectedIsRefusedBeforeItsBody() throws {
        let receiver = Receiver()
        #expect(throws: TransportError.tooLarge(transport.url(for: "tours/demo/demo-1.vpspack"), limit: 100_000)) {
            try receiver.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: 100_000)
        }
        #expect(receiver.sinkCalls == 0)
    }

    @Test func stoppedServerIsConnectionRefused() throws {
        let port = try Nginx.freePort()
        let down = HTTPTransport(baseURL: URL(string: "http://127.0.0.1:\(port)")!, configuration: fastConfiguration())
        let error = #expect(throws: TransportError.self) { try down.fetch("tours/demo/offer.json", limit: 1024) }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("cannot connect"))
    }

    @Test func unknownHostIsADNSFailure() {
        let nowhere = HTTPTransport(baseURL: URL(string: "http://no-such-host.invalid")!, configuration: fastConfiguration())
        let error = #expect(throws: TransportError.self) { try nowhere.fetch("tours/demo/offer.json", limit: 1024) }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("DNS"))
        #expect(message.contains("no-such-host.invalid"))
    }
}
