import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A real nginx serving a directory on a free loopback port, with its own
/// temporary prefix and configuration; stopped by ``stop()`` or on deinit.
///
/// Besides the static files under `root` it has two fixed locations:
/// `/loop/` redirects to itself forever and `/private/` answers 403.
final class Nginx: @unchecked Sendable {
    static let binary = "/usr/sbin/nginx"

    let root: URL
    let port: Int
    let prefix: URL
    /// PEM certificate and key when nginx serves HTTPS.
    let tls: (certificate: URL, key: URL)?
    private let process: Process

    var baseURL: URL { URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")! }

    /// Starts nginx over `root`; fails the calling test with a message when nginx is missing or does not come up.
    init(root: URL, tls: (certificate: URL, key: URL)? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw TestFailure("\(Self.binary) is missing: run Scripts/setup (it installs nginx-light)")
        }
        self.root = root
        self.tls = tls
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true)

        var lastError = ""
        for _ in 0..<5 {
            let port = try Self.freePort()
            try Self.configuration(root: root, prefix: prefix, port: port, tls: tls)
                .write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path,
                                 "-e", prefix.appendingPathComponent("error.log").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            lastError = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        }
        throw TestFailure("nginx did not start: \(lastError)")
    }

    deinit { stop() }

    /// Kills nginx. SIGKILL, because a process started from a test thread inherits a
    /// signal mask that blocks SIGTERM, and nginx has nothing to flush here.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: prefix)
    }

    private static func configuration(root: URL, prefix: URL, port: Int, tls: (certificate: URL, key: URL)?) -> String {
        let p = prefix.path
        let listen = tls.map {
            "listen 127.0.0.1:\(port) ssl; ssl_certificate \($0.certificate.path); ssl_certificate_key \($0.key.path);"
        } ?? "listen 127.0.0.1:\(port);"
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(p)/nginx.pid;
            error_log \(p)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(p)/tmp/body;
                proxy_temp_path \(p)/tmp/proxy;
                fastcgi_temp_path \(p)/tmp/fastcgi;
                uwsgi_temp_path \(p)/tmp/uwsgi;
                scgi_temp_path \(p)/tmp/scgi;
                default_type application/octet-stream;
                types { application/json json; }
                sendfile on;
                server {
                    \(listen)
                    root \(root.path);
                    location /loop/ { return 302 /loop/; }
                    location /private/ { return 403; }
                }
            }

            """
    }

    /// A port that was free a moment ago (bind to port 0, read it, close).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TestFailure("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// True once something accepts connections on the port (up to 10 s), false if nginx exited.
    static func waitUntilListening(port: Int, process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if canConnect(port: port) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
