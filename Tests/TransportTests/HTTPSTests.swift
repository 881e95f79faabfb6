import Foundation
import PackTransport
import Testing
import VPSCrypto

/// HTTPS against nginx with a certificate made for the test: verified against its CA file, refused without it.
@Suite(.serialized)
final class HTTPSTests {
    let dir: URL
    let certificate: URL
    let nginx: Nginx
    let archive = testBytes(200_000, seed: 11)

    init() throws {
        dir = try temporaryDirectory("vpspack-tls")
        certificate = dir.appendingPathComponent("cert.pem")
        let key = dir.appendingPathComponent("key.pem")
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        guard FileManager.default.isExecutableFile(atPath: openssl.path) else {
            throw TestFailure("/usr/bin/openssl is missing: run Scripts/setup (it installs openssl)")
        }
        let make = Process()
        make.executableURL = openssl
        make.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", key.path, "-out", certificate.path, "-days", "1", "-subj", "/CN=127.0.0.1",
                          "-addext", "subjectAltName=IP:127.0.0.1"]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        guard make.terminationStatus == 0 else { throw TestFailure("openssl could not make a test certificate") }
        let site = dir.appendingPathComponent("site/tours/demo")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data(archive).write(to: site.appendingPathComponent("demo-1.vpspack"))
        try Data("{}".utf8).write(to: site.appendingPathComponent("offer.json"))
        nginx = try Nginx(root: dir.appendingPathComponent("site"), tls: (certificate, key))
    }

    deinit {
        nginx.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    @Test func verifiedAgainstTheGivenCAStreamsAndResumes() throws {
        var configuration = fastConfiguration()
        configuration.caFile = certificate.path
        let transport = HTTPTransport(baseURL: nginx.baseURL, configuration: configuration)
        #expect(nginx.baseURL.scheme == "https")
        #expect(try transport.fetch("tours/demo/offer.json", limit: 1024) == Data("{}".utf8))
        let first = Receiver()
        let etag = try #require(try first.receive(transport, "tours/demo/demo-1.vpspack", ifRange: nil, maxLength: Int64(archive.count)).etag)
        let resumed = Receiver(holding: Array(archive[0..<50_000]))
        try resumed.receive(transport, "tours/demo/demo-1.vpspack", ifRange: etag, maxLength: Int64(archive.count))
        #expect(resumed.restarts.isEmpty)
        #expect(resumed.sha256 == SHA256.hash(archive).hex)
    }

    @Test func unknownCertificateIsRefused() throws {
        let transport = HTTPTransport(baseURL: nginx.baseURL, configuration: fastConfiguration())
        let error = #expect(throws: TransportError.self) { try transport.fetch("tours/demo/offer.json", limit: 1024) }
        guard case .unavailable(let message)? = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("TLS"), "\(message)")
    }
}
