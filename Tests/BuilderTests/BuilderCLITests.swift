import Foundation
import Testing

/// Runs the built `vpspack` (next to the test bundle, else .build/debug) and captures its output.
struct VPSPack {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func binary() throws -> URL {
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vpspack"),
                          Bundle.main.bundleURL.appendingPathComponent("vpspack"),
                          TestSupport.repository.appendingPathComponent(".build/debug/vpspack")]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            Issue.record("the vpspack executable was not found; build it first (swift build)")
            throw CancellationError()
        }
        return found
    }

    static func run(_ arguments: String...) throws -> Result {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

@Suite("synth, build, verify --deep and inspect from the command line", .serialized)
struct BuilderCLITests {
    @Test("usage errors exit 64 and name the option")
    func usage() throws {
        let size = try VPSPack.run("synth", "--out", "/tmp/never", "--size", "10x10")
        #expect(size.status == 64 && size.stderr.contains("--size 10x10"))
        let venue = try VPSPack.run("synth", "--out", "/tmp/never", "--venue", "castle")
        #expect(venue.status == 64 && venue.stderr.contains("--venue castle"))
        let both = try VPSPack.run("build", "--transforms", "a.json", "--colmap", "m", "-o", "x.vpspack", "--tour", "t", "--version", "1")
        #expect(both.status == 64 && both.stderr.contains("either --transforms FILE or --colmap MODEL_DIR"))
        let deep = try VPSPack.run("verify", "--junit", "j.xml", "x.vpspack")
        #expect(deep.status == 64 && deep.stderr.contains("need --deep"))
        let help = try VPSPack.run("build", "--help")
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: vpspack build"))
    }

    @Test("a missing capture is an I/O error naming the file")
    func missingCapture() throws {
        let r = try VPSPack.run("build", "--transforms", "/nonexistent/transforms.json", "-o", "/tmp/x.vpspack", "--tour", "t", "--version", "1")
        #expect(r.status == 74)
        #expect(r.stderr.contains("/nonexistent/transforms.json"))
    }

    @Test("synth → build → verify --deep --junit → inspect --preview --ply; a damaged archive fails deep verification")
    func pipeline() throws {
        let dir = try TestSupport.temporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("capture").path, pack = dir.appendingPathComponent("p.vpspack").path
        let synth = try VPSPack.run("synth", "--out", capture, "--venue", "room", "--frames", "10", "--queries", "0", "--size", "128x96", "--json")
        #expect(synth.status == 0, "\(synth.stderr)")
        let build = try VPSPack.run("build", "--transforms", capture + "/transforms.json", "-o", pack, "--tour", "cli-room", "--version", "2",
                                    "--validation", "1", "--georef", "48.85,2.35,35,10", "--json")
        #expect(build.status == 0, "\(build.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(build.stdout.utf8)) as? [String: Any])
        let points = try #require(summary["points"] as? Int)
        #expect(points > 50 && summary["validationFrames"] as? Int == 1)

        let junit = dir.appendingPathComponent("junit.xml").path
        let verify = try VPSPack.run("verify", "--deep", pack, "--junit", junit, "--min-recall", "0")
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("map: \(points) points"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuites") && xml.contains("tests=\"3\"") && xml.contains("name=\"recall\""))

        let preview = dir.appendingPathComponent("top.png").path, ply = dir.appendingPathComponent("points.ply").path
        let inspect = try VPSPack.run("inspect", pack, "--preview", preview, "--ply", ply)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: preview))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let plyData = try Data(contentsOf: URL(fileURLWithPath: ply))
        let header = String(decoding: plyData.prefix(400), as: UTF8.self)
        #expect(header.contains("element vertex \(points)\n") && header.contains("property uchar red"))
        let headerLength = try #require(header.range(of: "end_header\n")).upperBound.utf16Offset(in: header)
        #expect(plyData.count == headerLength + points * 15)

        // The build is deterministic: the same capture and creation time give the same bytes.
        let again = dir.appendingPathComponent("again.vpspack").path, fixed = dir.appendingPathComponent("fixed.vpspack").path
        for out in [fixed, again] {
            let r = try VPSPack.run("build", "--transforms", capture + "/transforms.json", "-o", out, "--tour", "cli-room", "--version", "2",
                                    "--validation", "1", "--created", "2026-01-02T03:04:05Z")
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixed)) == Data(contentsOf: URL(fileURLWithPath: again)))

        // A published site and an installed pack verify deeply too.
        let key = dir.appendingPathComponent("producer.key").path, site = dir.appendingPathComponent("site").path
        let store = dir.appendingPathComponent("store").path
        let keygen = try VPSPack.run("keygen", "--out", key)
        let publicKey = keygen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keygen.status == 0 && publicKey.count == 64, "\(keygen.stderr)")
        #expect(try VPSPack.run("publish", pack, "--site", site, "--key", key).status == 0)
        let siteCheck = try VPSPack.run("verify", "--deep", site, "--key", publicKey, "--min-recall", "0")
        #expect(siteCheck.status == 0, "\(siteCheck.stdout)\(siteCheck.stderr)")
        #expect(siteCheck.stdout.contains("offer signature verifies") && siteCheck.stdout.contains("matches the offer"))
        let wrongKey = try VPSPack.run("verify", "--deep", site, "--key", String(repeating: "ab", count: 32))
        #expect(wrongKey.status == 1)
        #expect(try VPSPack.run("trust", "--server", site, "--key", publicKey, "--store", store).status == 0)
        #expect(try VPSPack.run("download", "--server", site, "--tour", "cli-room", "--store", store).status == 0)
        let installed = try VPSPack.run("verify", "--deep", "--server", site, "--tour", "cli-room", "--store", store, "--min-recall", "0")
        #expect(installed.status == 0, "\(installed.stdout)\(installed.stderr)")
        #expect(installed.stdout.contains("stored files match the manifest"))

        // Damage one byte in the middle of the archive: deep verification fails and says so in JUnit.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pack))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: pack))
        let damaged = try VPSPack.run("verify", "--deep", pack, "--junit", junit)
        #expect(damaged.status == 1)
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<failure"))
    }
}
