import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose.
///
/// Each connection carries one request; `script` decides the answer from the
/// request and its index (0 for the first request), so a test can drop the
/// first connection mid-body and answer the second properly, change the ETag
/// between attempts, stall, loop redirects or send data forever.
final class FaultServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Lowercased header names.
        var headers: [String: String]
        /// 0 for the first request this server got.
        var index: Int
        /// 0 for the first request of this path.
        var pathIndex: Int = 0
    }

    /// What to do with one request.
    enum Reply: Sendable {
        /// A response; `cutAfter` closes the connection after that many body bytes.
        case respond(status: Int, headers: [(String, String)], body: [UInt8], cutAfter: Int?)
        /// Sends the headers, then nothing until the client gives up.
        case stallAfterHeaders(status: Int, headers: [(String, String)])
        /// Sends headers without a length, then bytes forever.
        case endless(status: Int, headers: [(String, String)])
        /// A slow link: the body in pieces of `chunk` bytes, `delay` seconds apart.
        case paced(status: Int, headers: [(String, String)], body: [UInt8], chunk: Int, delay: TimeInterval)
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var _requests: [Request] = []
    private var connections: [Int32] = []
    private var stopped = false
    private let script: @Sendable (Request) -> Reply

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return _requests
    }

    init(script: @escaping @Sendable (Request) -> Reply) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw TestFailure("cannot listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Closes the listener and every open connection.
    func stop() {
        lock.lock()
        let alreadyStopped = stopped
        stopped = true
        let open = connections
        connections.removeAll()
        lock.unlock()
        guard !alreadyStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        while !isStopped {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            lock.lock()
            if stopped {
                lock.unlock()
                close(fd)
                return
            }
            connections.append(fd)
            lock.unlock()
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            lock.lock()
            connections.removeAll { $0 == fd }
            lock.unlock()
            close(fd)
        }
        guard var request = readRequest(fd) else { return }
        lock.lock()
        request.index = _requests.count
        request.pathIndex = _requests.filter { $0.path == request.path }.count
        _requests.append(request)
        lock.unlock()

        switch script(request) {
        case .respond(let status, let headers, let body, let cutAfter):
            var all = headers
            if !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
                all.append(("Content-Length", String(body.count)))
            }
            guard send(fd, head(status, all)) else { return }
            let count = min(body.count, cutAfter ?? body.count)
            _ = send(fd, Array(body[0..<count]))
        case .stallAfterHeaders(let status, let headers):
            guard send(fd, head(status, headers + [("Content-Length", "1000000")])) else { return }
            waitForClose(fd)
        case .paced(let status, let headers, let body, let chunk, let delay):
            guard send(fd, head(status, headers + [("Content-Length", String(body.count))])) else { return }
            var offset = 0
            while offset < body.count, !isStopped {
                let end = min(body.count, offset + chunk)
                guard send(fd, Array(body[offset..<end])) else { return }
                offset = end
                Thread.sleep(forTimeInterval: delay)
            }
        case .endless(let status, let headers):
            guard send(fd, head(status, headers + [("Connection", "close")])) else { return }
            let chunk = [UInt8](repeating: 0x41, count: 64 * 1024)
            while !isStopped, send(fd, chunk) {}
        }
    }

    private func head(_ status: Int, _ headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nConnection: close\r\n"
        for (name, value) in headers where name.lowercased() != "connection" {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 302: return "Found"
        case 404: return "Not Found"
        case 416: return "Range Not Satisfiable"
        case 500: return "Internal Server Error"
        default: return "Status"
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while data.count < 65536 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
            if data.count >= 4, (0...(data.count - 4)).contains(where: { Array(data[$0..<$0 + 4]) == end }) { break }
        }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, index: 0)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func waitForClose(_ fd: Int32) {
        var byte: UInt8 = 0
        while !isStopped {
            let n = recv(fd, &byte, 1, 0)
            if n <= 0 { return }
        }
    }

    // MARK: - Proper static-file answers, for scripts to fall back on

    /// A correct answer for a static file with a strong ETag: 200, 206 for a satisfiable
    /// `Range: bytes=N-` whose `If-Range` matches (or is absent), 416 past the end.
    static func file(_ body: [UInt8], etag: String, for request: Request, cutAfter: Int? = nil) -> Reply {
        let headers = [("ETag", etag), ("Accept-Ranges", "bytes")]
        guard let range = request.headers["range"], range.hasPrefix("bytes="),
              let start = Int(range.dropFirst("bytes=".count).dropLast(range.hasSuffix("-") ? 1 : 0))
        else {
            return .respond(status: 200, headers: headers, body: body, cutAfter: cutAfter)
        }
        if let ifRange = request.headers["if-range"], ifRange != etag {
            return .respond(status: 200, headers: headers, body: body, cutAfter: cutAfter)
        }
        guard start < body.count else {
            return .respond(status: 416, headers: [("Content-Range", "bytes */\(body.count)")], body: Array("no".utf8), cutAfter: nil)
        }
        return .respond(
            status: 206,
            headers: headers + [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")],
            body: Array(body[start...]),
            cutAfter: cutAfter
        )
    }
}

/// A failure in test support code, with a message saying what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
