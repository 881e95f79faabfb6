import Foundation
import PackTransport
import Testing
import VPSCrypto

/// The HTTP transport against a server that drops, stalls, lies and loops on purpose.
@Suite(.serialized)
struct HTTPTransportFaultTests {
    static let body = testBytes(300_000, seed: 3)
    static let path = "tours/demo/demo-1.vpspack"

    func transport(_ server: FaultServer, attempts: Int = 3, stall: Int = 2, cancellation: CancellationFlag? = nil) -> HTTPTransport {
        HTTPTransport(baseURL: server.baseURL, configuration: fastConfiguration(attempts: attempts, stall: stall), cancellation: cancellation)
    }

    @Test func droppedMidBodyThenResumeCompletes() throws {
        let server = try FaultServer { request in
            FaultServer.file(Self.body, etag: "\"v1\"", for: request, cutAfter: request.index == 0 ? 120_000 : nil)
        }
        defer { server.stop() }
        let receiver = Receiver()
        let response = try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: Int64(Self.body.count))
        #expect(receiver.sha256 == SHA256.hash(Self.body).hex)
        #expect(receiver.restarts.count == 1, "only the first response starts at byte 0")
        #expect(response.etag == "\"v1\"")
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].headers["range"] == "bytes=120000-")
        #expect(requests[1].headers["if-range"] == "\"v1\"")
    }

    @Test func serverIgnoringRangeRestartsFromZero() throws {
        let server = try FaultServer { request in
            .respond(status: 200, headers: [("ETag", "\"v1\"")], body: Self.body, cutAfter: request.index == 0 ? 50_000 : nil)
        }
        defer { server.stop() }
        let receiver = Receiver()
        try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: Int64(Self.body.count))
        #expect(receiver.restarts.count == 2)
        #expect(receiver.sha256 == SHA256.hash(Self.body).hex)
        #expect(server.requests.last?.headers["range"] == "bytes=50000-")
    }

    @Test func serverErrorThenSuccessIsRetried() throws {
        let server = try FaultServer { request in
            request.index == 0
                ? .respond(status: 500, headers: [], body: Array("internal error page".utf8), cutAfter: nil)
                : FaultServer.file(Self.body, etag: "\"v1\"", for: request)
        }
        defer { server.stop() }
        let receiver = Receiver()
        try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: Int64(Self.body.count))
        #expect(receiver.sha256 == SHA256.hash(Self.body).hex)
        #expect(server.requests.count == 2)
    }

    @Test func errorBodyNeverReachesTheSink() throws {
        let server = try FaultServer { _ in
            .respond(status: 503, headers: [], body: Array("try later".utf8), cutAfter: nil)
        }
        defer { server.stop() }
        let receiver = Receiver(holding: Array(Self.body[0..<10]))
        let error = #expect(throws: TransportError.self) {
            try receiver.receive(transport(server, attempts: 2), Self.path, ifRange: "\"v1\"", maxLength: Int64(Self.body.count))
        }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("HTTP 503"))
        #expect(message.contains("gave up after 2 attempts"))
        #expect(receiver.sinkCalls == 0)
        #expect(receiver.bytes == Array(Self.body[0..<10]), "the partial must stay as it was")
    }

    @Test func stallingServerTimesOut() throws {
        let server = try FaultServer { _ in .stallAfterHeaders(status: 200, headers: [("ETag", "\"v1\"")]) }
        defer { server.stop() }
        let receiver = Receiver()
        let error = #expect(throws: TransportError.self) {
            try receiver.receive(transport(server, attempts: 1, stall: 1), Self.path, ifRange: nil, maxLength: Int64(Self.body.count))
        }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("timed out"))
    }

    @Test func endlessBodyStopsAtTheExpectedLength() throws {
        let server = try FaultServer { _ in .endless(status: 200, headers: [("ETag", "\"v1\"")]) }
        defer { server.stop() }
        let receiver = Receiver()
        try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: 200_000)
        #expect(receiver.bytes.count == 200_000)
    }

    @Test func endlessOfferIsTooLarge() throws {
        let server = try FaultServer { _ in .endless(status: 200, headers: []) }
        defer { server.stop() }
        let t = transport(server)
        #expect(throws: TransportError.tooLarge(t.url(for: "tours/demo/offer.json"), limit: 64 * 1024)) {
            try t.fetch("tours/demo/offer.json", limit: 64 * 1024)
        }
    }

    @Test func declaredLengthPastTheCapIsRefusedBeforeTheBody() throws {
        let server = try FaultServer { request in FaultServer.file(Self.body, etag: "\"v1\"", for: request) }
        defer { server.stop() }
        let receiver = Receiver()
        let t = transport(server)
        #expect(throws: TransportError.tooLarge(t.url(for: Self.path), limit: 1000)) {
            try receiver.receive(t, Self.path, ifRange: nil, maxLength: 1000)
        }
        #expect(receiver.sinkCalls == 0)
    }

    @Test func etagChangeBetweenAttemptsRestarts() throws {
        let newBody = testBytes(300_000, seed: 4)
        let server = try FaultServer { request in
            request.index == 0
                ? FaultServer.file(Self.body, etag: "\"v1\"", for: request, cutAfter: 100_000)
                : FaultServer.file(newBody, etag: "\"v2\"", for: request)
        }
        defer { server.stop() }
        let receiver = Receiver()
        let response = try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: Int64(newBody.count))
        #expect(receiver.restarts.count == 2)
        #expect(receiver.sha256 == SHA256.hash(newBody).hex)
        #expect(response.etag == "\"v2\"")
        #expect(server.requests[1].headers["if-range"] == "\"v1\"")
    }

    @Test func rangeIgnoringIfRangeWithNewETagRestarts() throws {
        let newBody = testBytes(300_000, seed: 5)
        // A broken cache: honours Range but not If-Range, and the file changed.
        let server = try FaultServer { request in
            if let range = request.headers["range"], let start = Int(range.dropFirst(6).dropLast()) {
                return .respond(status: 206, headers: [("ETag", "\"v2\""), ("Content-Range", "bytes \(start)-\(newBody.count - 1)/\(newBody.count)")],
                                body: Array(newBody[start...]), cutAfter: nil)
            }
            return .respond(status: 200, headers: [("ETag", "\"v2\"")], body: newBody, cutAfter: nil)
        }
        defer { server.stop() }
        let receiver = Receiver(holding: Array(Self.body[0..<1000]))
        try receiver.receive(transport(server), Self.path, ifRange: "\"v1\"", maxLength: Int64(newBody.count))
        #expect(receiver.restarts.count == 1)
        #expect(receiver.sha256 == SHA256.hash(newBody).hex)
    }

    @Test func contentRangeAtTheWrongOffsetIsRefused() throws {
        let server = try FaultServer { _ in
            .respond(status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 0-299999/300000")], body: Self.body, cutAfter: nil)
        }
        defer { server.stop() }
        let receiver = Receiver(holding: Array(Self.body[0..<5000]))
        let error = #expect(throws: TransportError.self) {
            try receiver.receive(transport(server), Self.path, ifRange: "\"v1\"", maxLength: Int64(Self.body.count))
        }
        guard case .protocolViolation(let message)? = error else {
            Issue.record("expected protocolViolation, got \(String(describing: error))")
            return
        }
        #expect(message.contains("from 5000"))
        #expect(receiver.bytes == Array(Self.body[0..<5000]))
    }

    @Test func sinkFailureStopsTheTransferAndIsRethrown() throws {
        struct DiskFull: Error, Equatable {}
        let server = try FaultServer { request in FaultServer.file(Self.body, etag: "\"v1\"", for: request) }
        defer { server.stop() }
        let receiver = Receiver()
        receiver.failAt = 100_000
        receiver.failure = DiskFull()
        #expect(throws: DiskFull()) {
            try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: Int64(Self.body.count))
        }
        #expect(server.requests.count == 1, "a local write failure is not retried")
    }

    @Test func cancellationStopsWithInterruptedAndKeepsThePartial() throws {
        let flag = CancellationFlag()
        let server = try FaultServer { request in FaultServer.file(Self.body, etag: "\"v1\"", for: request) }
        defer { server.stop() }
        let t = transport(server, cancellation: flag)
        let held = Array(Self.body[0..<1000])
        var bytes = held
        #expect(throws: TransportError.interrupted) {
            try t.stream(Self.path, from: 1000, ifRange: "\"v1\"", maxLength: Int64(Self.body.count),
                         restart: { _ in bytes.removeAll() },
                         sink: { chunk in
                             bytes.append(contentsOf: chunk)
                             if bytes.count > 50_000 { flag.raise() }
                         })
        }
        #expect(bytes.count > 50_000 && bytes.count < Self.body.count)
        #expect(bytes == Array(Self.body[0..<bytes.count]), "what was received is a clean prefix to resume from")
    }

    @Test func redirectLoopIsRefused() throws {
        let server = try FaultServer { request in
            .respond(status: 302, headers: [("Location", request.path)], body: [], cutAfter: nil)
        }
        defer { server.stop() }
        let receiver = Receiver()
        let error = #expect(throws: TransportError.self) {
            try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: 1000)
        }
        guard case .protocolViolation(let message)? = error else {
            Issue.record("expected protocolViolation, got \(String(describing: error))")
            return
        }
        #expect(message.contains("redirect"))
        #expect(server.requests.count == 6)
    }

    @Test func unauthorizedIsForbidden() throws {
        let server = try FaultServer { _ in .respond(status: 401, headers: [], body: Array("who are you".utf8), cutAfter: nil) }
        defer { server.stop() }
        let receiver = Receiver()
        #expect(throws: TransportError.forbidden(transport(server).url(for: Self.path) + ": the server refused access", status: 401)) {
            try receiver.receive(transport(server), Self.path, ifRange: nil, maxLength: 1000)
        }
        #expect(receiver.sinkCalls == 0)
    }
}
