import Foundation
import TestSupport
import PackFormat
import PackTransport
import Testing
import VPSCrypto
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What one run of the built `vpspack` binary did.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A temporary directory with a store, a signing key and pack archives, and the built `vpspack` to drive them.
final class NetworkScene {
    let root: URL
    let key: Ed25519PrivateKey
    var store: URL { root.appendingPathComponent("store") }
    var site: URL { root.appendingPathComponent("site") }

    init() throws {
        root = try temporaryDirectory("vpspack-net")
        key = try Ed25519PrivateKey()
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// The `vpspack` binary of this build: next to the test bundle, else `.build/debug/vpspack`.
    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let argv0 = CommandLine.arguments.first {
            var dir = URL(fileURLWithPath: argv0).deletingLastPathComponent()
            if dir.path.hasSuffix(".xctest/Contents/MacOS") {
                dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            }
            candidates.append(dir.appendingPathComponent("vpspack"))
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/vpspack"))
        for url in candidates where FileManager.default.isExecutableFile(atPath: url.path) { return url }
        throw TestFailure("the vpspack binary was not found (looked at \(candidates.map(\.path))); run `swift build` first")
    }

    /// Starts `vpspack arguments` with the scene's store and fast HTTP settings; output goes to files.
    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, URL, URL) {
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = arguments
        return try launch(process, environment: environment)
    }

    private func launch(_ process: Process, environment: [String: String]) throws -> (Process, URL, URL) {
        var env = ProcessInfo.processInfo.environment
        env["VPSPACK_STORE"] = store.path
        env["VPSPACK_HTTP_CONNECT_TIMEOUT"] = "3"
        env["VPSPACK_HTTP_STALL_TIMEOUT"] = "2"
        env["VPSPACK_HTTP_ATTEMPTS"] = "3"
        env["VPSPACK_HTTP_BACKOFF"] = "0.01"
        for (k, v) in environment { env[k] = v }
        let (out, err) = try CapturedProcess.launch(process, in: root, environment: env)
        return (process, out, err)
    }

    func finish(_ started: (Process, URL, URL)) -> Run {
        started.0.waitUntilExit()
        let out = String(decoding: Self.readFile(started.1.path), as: UTF8.self)
        let err = String(decoding: Self.readFile(started.2.path), as: UTF8.self)
        try? FileManager.default.removeItem(at: started.1)
        try? FileManager.default.removeItem(at: started.2)
        return Run(status: started.0.terminationStatus, stdout: out, stderr: err)
    }

    /// A whole file with read(2): Foundation's file reading is reported as leaking under LeakSanitizer.
    static func readFile(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    @discardableResult
    func vpspack(_ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        finish(try start(arguments, environment: environment))
    }

    /// Runs vpspack through bash with a file-size limit (RLIMIT_FSIZE, in KiB) and SIGXFSZ ignored,
    /// so writes past the limit fail with EFBIG, as they would on a full disk.
    func vpspackWithWriteCap(kilobytes: Int, _ arguments: String...) throws -> Run {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", "trap '' XFSZ; ulimit -f \(kilobytes); exec \"$0\" \"$@\"", try Self.binary().path] + arguments
        return finish(try launch(shell, environment: [:]))
    }

    /// Runs vpspack with its stdout on a pseudo-terminal (util-linux `script`), as a person at a terminal sees it.
    func vpspackOnTerminal(_ arguments: String...) throws -> Run {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([try Self.binary().path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        shell.arguments = ["-qfec", command, "/dev/null"]
        return finish(try launch(shell, environment: [:]))
    }

    /// Makes a real `.vpspack` of tour `demo` with one map file of `size` pseudo-random bytes.
    func archive(version: Int, size: Int = 200_000, tour: String = "demo") throws -> URL {
        let src = root.appendingPathComponent("src-\(tour)-\(version)")
        try FileManager.default.createDirectory(at: src.appendingPathComponent("map"), withIntermediateDirectories: true)
        try Data(DownloadScene.bytes(size, seed: UInt64(version) &* 7919)).write(to: src.appendingPathComponent("map/points.bin"))
        let url = root.appendingPathComponent("\(tour)-\(version).vpspack")
        try PackArchiveWriter.write(folder: src, to: url, tour: tour, version: version)
        return url
    }

    /// A signed offer.json for an archive, as `publish` would write it.
    func offer(for archive: URL, version: Int, tour: String = "demo", validFor: TimeInterval = 3600) throws -> Data {
        let bytes = try Data(contentsOf: archive)
        let offer = Offer(tour: tour, version: version, created: Date(), expires: Date().addingTimeInterval(validFor), format: 1,
                          archive: .init(path: archive.lastPathComponent, length: Int64(bytes.count), sha256: SHA256.hash(bytes).hex))
        return try OfferEnvelope(offer: offer, signedBy: [key]).encoded()
    }

    /// Pins the scene's key for `server` through the CLI.
    func trust(_ server: URL) throws {
        let run = try vpspack("trust", "--server", server.absoluteString, "--key", key.publicKey.hex)
        #expect(run.status == 0, "trust: \(run.stderr)")
    }

    /// The installed version of tour demo (nil when not installed), read through `list --json`.
    func installedVersion(tour: String = "demo") throws -> Int? {
        let run = try vpspack("list", "--json")
        guard run.status == 0, let data = run.stdout.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let packs = object["packs"] as? [[String: Any]]
        else { throw TestFailure("list --json failed: \(run.status) \(run.stderr)") }
        return packs.first { $0["tour"] as? String == tour }?["version"] as? Int
    }

    /// `verify --all` exits 0.
    func verifyIsClean() throws -> Bool {
        let run = try vpspack("verify", "--all")
        return run.status == 0
    }
}

/// A fault server serving one tour: offer.json as given, the archive path through `archive`.
func tourServer(
    offer: Data, archiveName: String,
    archive: @escaping @Sendable (FaultServer.Request) -> FaultServer.Reply
) throws -> FaultServer {
    try FaultServer { request in
        if request.path.hasSuffix("/offer.json") {
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array(offer), cutAfter: nil)
        }
        if request.path.hasSuffix("/" + archiveName) { return archive(request) }
        return .respond(status: 404, headers: [], body: Array("not found".utf8), cutAfter: nil)
    }
}
