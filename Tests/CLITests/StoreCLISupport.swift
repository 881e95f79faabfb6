import Foundation
import TestSupport
import PackFormat
import VPSCrypto

/// What one run of the built `vpspack` binary did.
struct CLIResult {
    var status: Int32
    /// True when the process was killed by a signal (status is then the signal number).
    var killedBySignal: Bool
    var stdout: String
    var stderr: String
    var stdoutData: Data

    /// stdout parsed as one JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: stdoutData) as? [String: Any] else {
            throw CLIError("stdout is not a JSON object: \(stdout)")
        }
        return object
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs the built `vpspack` executable, as the store's CLI tests need.
enum StoreCLI {
    /// The binary: next to the test bundle (the same build), else `.build/debug/vpspack` of this package.
    static func binary() throws -> URL {
        var candidates: [URL] = []
        if let argv0 = CommandLine.arguments.first {
            var dir = URL(fileURLWithPath: argv0).deletingLastPathComponent()
            // macOS runs tests from inside an .xctest bundle; Linux runs the bundle executable itself.
            if dir.path.hasSuffix(".xctest/Contents/MacOS") {
                dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            }
            candidates.append(dir.appendingPathComponent("vpspack"))
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vpspack"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/vpspack"))
        for url in candidates where FileManager.default.isExecutableFile(atPath: url.path) {
            return url
        }
        throw CLIError("the vpspack binary was not found (looked at \(candidates.map(\.path).joined(separator: ", "))); run `swift build` first")
    }

    /// Starts `vpspack arguments` with stdout and stderr going to files in `dir`.
    static func start(_ arguments: [String], in dir: URL, environment: [String: String] = [:]) throws -> RunningCLI {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "VPSPACK_CRASH_POINT")
        env.removeValue(forKey: "VPSPACK_PAUSE_POINT")
        env.removeValue(forKey: "VPSPACK_STORE")
        for (k, v) in environment { env[k] = v }
        let (out, err) = try CapturedProcess.launch(process, in: dir, environment: env)
        return RunningCLI(process: process, stdoutFile: out, stderrFile: err)
    }

    /// Runs `vpspack arguments` to completion.
    static func run(_ arguments: [String], in dir: URL, environment: [String: String] = [:]) throws -> CLIResult {
        try start(arguments, in: dir, environment: environment).wait()
    }
}

/// A `vpspack` process started by a test.
struct RunningCLI {
    let process: Process
    let stdoutFile: URL
    let stderrFile: URL

    func wait() throws -> CLIResult {
        process.waitUntilExit()
        let out = (try? Data(contentsOf: stdoutFile)) ?? Data()
        let err = (try? Data(contentsOf: stderrFile)) ?? Data()
        try? FileManager.default.removeItem(at: stdoutFile)
        try? FileManager.default.removeItem(at: stderrFile)
        return CLIResult(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self), stdoutData: out
        )
    }

    /// Kills the process with SIGKILL: nothing runs after it, as after a power cut of the process.
    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }
}

/// A temporary working directory with a local server (`site/`) and a store (`store/`).
final class StoreScene {
    let root: URL
    var site: URL { root.appendingPathComponent("site") }
    var store: URL { root.appendingPathComponent("store") }
    var databaseFile: URL { store.appendingPathComponent("store.sqlite") }
    /// The server as the tests type it: a relative directory path.
    let server = "site"

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        TestBytes.pseudoRandom(count, seed: seed)
    }

    /// Runs vpspack here, with the store given by `VPSPACK_STORE`.
    func vpspack(_ arguments: String..., environment: [String: String] = [:]) throws -> CLIResult {
        try StoreCLI.run(arguments, in: root, environment: ["VPSPACK_STORE": store.path].merging(environment) { $1 })
    }

    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningCLI {
        try StoreCLI.start(arguments, in: root, environment: ["VPSPACK_STORE": store.path].merging(environment) { $1 })
    }

    /// Makes version `version` of `tour` with `vpspack pack` and publishes it with an unsigned offer
    /// (or one signed by `key`).
    @discardableResult
    func publish(
        tour: String = "demo", version: Int, size: Int = 600_000, seed: UInt64? = nil,
        expires: Date = Date().addingTimeInterval(86_400), key: Ed25519PrivateKey? = nil
    ) throws -> URL {
        let src = root.appendingPathComponent("src-\(tour)-\(version)")
        try? FileManager.default.removeItem(at: src)
        try FileManager.default.createDirectory(at: src.appendingPathComponent("map"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: src.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        try Data(Self.bytes(size, seed: seed ?? UInt64(version))).write(to: src.appendingPathComponent("map/points.bin"))
        try Data(Self.bytes(100_000, seed: 999)).write(to: src.appendingPathComponent("map/shared.bin"))
        try Data("{\"tags\":[\(version)]}".utf8).write(to: src.appendingPathComponent("attachments/tags.json"))
        let dir = site.appendingPathComponent("tours/\(tour)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let name = "\(tour)-\(version).vpspack"
        let packed = try StoreCLI.run(
            ["pack", src.path, "-o", dir.appendingPathComponent(name).path, "--tour", tour, "--version", String(version)], in: root
        )
        guard packed.status == 0 else { throw CLIError("vpspack pack failed: \(packed.stderr)") }
        try writeOffer(tour: tour, version: version, archive: name, expires: expires, key: key)
        return dir.appendingPathComponent(name)
    }

    /// Writes tours/<tour>/offer.json for an archive already in the site.
    func writeOffer(
        tour: String, version: Int, archive: String, expires: Date = Date().addingTimeInterval(86_400),
        key: Ed25519PrivateKey? = nil, offeredTour: String? = nil, sha256: String? = nil
    ) throws {
        let dir = site.appendingPathComponent("tours/\(tour)")
        let data = try Data(contentsOf: dir.appendingPathComponent(archive))
        let offer = Offer(
            tour: offeredTour ?? tour, version: version, created: Date(), expires: expires, format: 1,
            archive: .init(path: archive, length: Int64(data.count), sha256: sha256 ?? SHA256.hash(data).hex)
        )
        try OfferEnvelope(offer: offer, signedBy: key.map { [$0] } ?? []).encoded().write(to: dir.appendingPathComponent("offer.json"))
    }

    /// The installed version of `tour` per `vpspack list --json`, nil when not installed.
    func installedVersion(_ tour: String = "demo") throws -> Int? {
        let result = try vpspack("list", "--json")
        guard result.status == 0 else { throw CLIError("list failed: \(result.stderr)") }
        let packs = try result.json()["packs"] as? [[String: Any]] ?? []
        return packs.first { $0["tour"] as? String == tour }?["version"] as? Int
    }

    /// `verify --all --json`: whether it is clean, and the installed versions it saw.
    func verifyAll() throws -> (ok: Bool, versions: [String: Int], result: CLIResult) {
        let result = try vpspack("verify", "--all", "--json")
        let object = try result.json()
        var versions: [String: Int] = [:]
        for pack in object["packs"] as? [[String: Any]] ?? [] {
            if let tour = pack["tour"] as? String, let version = pack["version"] as? Int { versions[tour] = version }
        }
        return ((object["ok"] as? Bool) == true && result.status == 0, versions, result)
    }
}
