import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `vpspack verify --deep` on an archive, a published site and an installed pack.
@Suite("verify --deep")
struct DeepVerifyTests {
    /// A scratch folder with its own store, removed at the end of the test.
    final class Scratch {
        let root: URL
        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-deep-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: root) }

        func vpspack(_ arguments: String...) throws -> CLIResult {
            try StoreCLI.run(arguments, in: root, environment: ["VPSPACK_STORE": root.appendingPathComponent("store").path])
        }

        func path(_ name: String) -> String { root.appendingPathComponent(name).path }
    }

    /// The checks of each pack in `verify --deep --json` output: pack name → [(check, status)].
    static func checks(_ result: CLIResult) throws -> [String: [(String, String)]] {
        let packs = try #require(try result.json()["packs"] as? [[String: Any]])
        var out: [String: [(String, String)]] = [:]
        for p in packs {
            let name = try #require(p["name"] as? String)
            let checks = try #require(p["checks"] as? [[String: Any]])
            out[name] = try checks.map { (try #require($0["name"] as? String), try #require($0["status"] as? String)) }
        }
        return out
    }

    /// Parses the JUnit file: per suite name, (tests, failures, skipped) attributes and the test case names.
    static func junit(_ path: String) throws -> [String: (tests: Int, failures: Int, skipped: Int, cases: [String], failed: [String])] {
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path), options: [])
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        var out: [String: (Int, Int, Int, [String], [String])] = [:]
        for suite in root.elements(forName: "testsuite") {
            func number(_ name: String) -> Int { Int(suite.attribute(forName: name)?.stringValue ?? "") ?? -1 }
            let cases = suite.elements(forName: "testcase")
            let failed = cases.filter { !$0.elements(forName: "failure").isEmpty }.compactMap { $0.attribute(forName: "name")?.stringValue }
            out[suite.attribute(forName: "name")?.stringValue ?? ""] = (number("tests"), number("failures"), number("skipped"),
                                                                       cases.compactMap { $0.attribute(forName: "name")?.stringValue }, failed)
        }
        return out
    }

    @Test("usage errors exit 64 naming the option; a missing archive or site is an I/O error (74)")
    func usage() throws {
        let s = try Scratch()
        let two = try s.vpspack("verify", "--deep", "a.vpspack", "--site", "site")
        #expect(two.status == 64 && two.stderr.contains("--deep takes one of"))
        let all = try s.vpspack("verify", "--deep", "--all")
        #expect(all.status == 64)
        let key = try s.vpspack("verify", "--deep", "--site", "site", "--key", "abc")
        #expect(key.status == 64 && key.stderr.contains("--key abc"))
        let site = try s.vpspack("verify", "--site", "site")
        #expect(site.status == 64 && site.stderr.contains("need --deep"))
        let missing = try s.vpspack("verify", "--deep", "missing.vpspack")
        #expect(missing.status == 74 && missing.stderr.contains("missing.vpspack"))
        let missingSite = try s.vpspack("verify", "--deep", "--site", "nowhere")
        #expect(missingSite.status == 74 && missingSite.stderr.contains("nowhere"))
        // An existing directory without tours is a site that fails its one check.
        try FileManager.default.createDirectory(at: s.root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let empty = try s.vpspack("verify", "--deep", "empty", "--junit", s.path("junit.xml"))
        #expect(empty.status == 1 && empty.stdout.contains("no tours/<tour>/offer.json"))
        #expect(try Self.junit(s.path("junit.xml"))["empty"]?.failures == 1)
    }

    @Test("a good archive passes with the default minimum recall; JSON and JUnit name each check")
    func goodArchive() async throws {
        let fixture = try await InspectPackFixture.shared()
        let s = try Scratch()
        let r = try s.vpspack("verify", "--deep", fixture.pack.path, "--junit", s.path("junit.xml"), "--json")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let json = try r.json()
        #expect(json["ok"] as? Bool == true)
        #expect(json["minRecall"] as? Double == 0.9)
        let packs = try #require(json["packs"] as? [[String: Any]])
        let validation = try #require(packs.first?["validation"] as? [String: Any])
        #expect(validation["frames"] as? Int == fixture.validationFrames)
        let recall = try #require(validation["recall"] as? Double)
        #expect(recall >= 0.9)
        let median = try #require(validation["medianPositionError"] as? Double)
        #expect(median < 0.25)
        let checks = try Self.checks(r)["room.vpspack"]
        #expect(checks?.map(\.0) == ["hashes", "map", "recall"])
        #expect(checks?.allSatisfy { $0.1 == "passed" } == true)

        let suites = try Self.junit(s.path("junit.xml"))
        let suite = try #require(suites["room.vpspack"])
        #expect(suites.count == 1)
        #expect(suite.tests == 3 && suite.failures == 0 && suite.skipped == 0)
        #expect(suite.cases == ["hashes", "map", "recall"])

        let text = try s.vpspack("verify", "--deep", fixture.pack.path)
        #expect(text.status == 0)
        #expect(text.stdout.contains("ok    room.vpspack: map: \(fixture.points) points"))
        #expect(text.stdout.contains("3 of 3 checks passed"))
    }

    @Test("validation frames whose poses do not fit the map fail the recall check with exit 1")
    func lowRecall() async throws {
        let fixture = try await InspectPackFixture.shared()
        let s = try Scratch()
        let shifted = s.root.appendingPathComponent("shifted.vpspack")
        try fixture.withShiftedValidation(metres: 2, to: shifted)
        let r = try s.vpspack("verify", "--deep", shifted.path, "--junit", s.path("junit.xml"), "--json")
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        let checks = try #require(try Self.checks(r)["shifted.vpspack"])
        #expect(checks.map(\.1) == ["passed", "passed", "failed"], "\(checks)")
        #expect(r.stderr.contains("recall below the minimum"))
        let suite = try #require(try Self.junit(s.path("junit.xml"))["shifted.vpspack"])
        #expect(suite.tests == 3 && suite.failures == 1 && suite.failed == ["recall"])

        // The same pack passes when no recall is required: only the recall decided.
        let lenient = try s.vpspack("verify", "--deep", shifted.path, "--min-recall", "0")
        #expect(lenient.status == 0, "\(lenient.stdout)\(lenient.stderr)")

        let usage = try s.vpspack("verify", "--deep", shifted.path, "--min-recall", "1.5")
        #expect(usage.status == 64 && usage.stderr.contains("--min-recall"))
    }

    @Test("a site: signatures checked with --key, reported without; a tampered archive fails against its offer")
    func site() async throws {
        let fixture = try await InspectPackFixture.shared()
        let s = try Scratch()
        let key = try s.vpspack("keygen", "--out", s.path("publisher.key"))
        #expect(key.status == 0, "\(key.stderr)")
        let publicKey = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try s.vpspack("keygen", "--out", s.path("other.key"))
        let otherKey = other.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let publish = try s.vpspack("publish", fixture.pack.path, "--site", s.path("site"), "--key", s.path("publisher.key"))
        #expect(publish.status == 0, "\(publish.stderr)")

        let signed = try s.vpspack("verify", "--deep", "--site", s.path("site"), "--key", publicKey, "--junit", s.path("junit.xml"), "--json")
        #expect(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
        let checks = try #require(try Self.checks(signed)["tour room"])
        #expect(checks.map(\.0) == ["signature", "offer", "archive", "hashes", "map", "recall"])
        #expect(checks.allSatisfy { $0.1 == "passed" }, "\(checks)")
        let suite = try #require(try Self.junit(s.path("junit.xml"))["tour room"])
        #expect(suite.tests == 6 && suite.failures == 0 && suite.skipped == 0)

        // A directory argument is a site too; without --key the signature is reported, not checked.
        let unknown = try s.vpspack("verify", "--deep", s.path("site"), "--json")
        #expect(unknown.status == 0, "\(unknown.stdout)\(unknown.stderr)")
        #expect(try Self.checks(unknown)["tour room"]?.first.map { $0 == ("signature", "skipped") } == true)

        let wrongKey = try s.vpspack("verify", "--deep", s.path("site"), "--key", otherKey, "--json")
        #expect(wrongKey.status == 1)
        #expect(try Self.checks(wrongKey)["tour room"]?.first.map { $0 == ("signature", "failed") } == true)

        // Flip one byte of the published archive: its hash no longer matches the offer.
        let archive = s.root.appendingPathComponent("site/tours/room/room-1.vpspack")
        var bytes = try Data(contentsOf: archive)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: archive)
        let tampered = try s.vpspack("verify", "--deep", s.path("site"), "--key", publicKey, "--junit", s.path("junit.xml"), "--json")
        #expect(tampered.status == 1)
        let after = try #require(try Self.checks(tampered)["tour room"])
        #expect(after.map(\.1) == ["passed", "passed", "failed", "skipped", "skipped", "skipped"], "\(after)")
        #expect(tampered.stderr.contains("the offer says"))
        let junit = try #require(try Self.junit(s.path("junit.xml"))["tour room"])
        #expect(junit.tests == 6 && junit.failures == 1 && junit.skipped == 3 && junit.failed == ["archive"])
    }

    @Test("an installed pack: hashes, store integrity, map and recall; inspect --ply gives the archive's points")
    func installed() async throws {
        let fixture = try await InspectPackFixture.shared()
        let s = try Scratch()
        let key = try s.vpspack("keygen", "--out", s.path("publisher.key"))
        let publicKey = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try s.vpspack("publish", fixture.pack.path, "--site", s.path("site"), "--key", s.path("publisher.key")).status == 0)
        #expect(try s.vpspack("trust", "--server", "site", "--key", publicKey).status == 0)
        let download = try s.vpspack("download", "--server", "site", "--tour", "room")
        #expect(download.status == 0, "\(download.stderr)")

        let r = try s.vpspack("verify", "--deep", "--server", "site", "--tour", "room", "--junit", s.path("junit.xml"), "--json")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let checks = try #require(try Self.checks(r).values.first)
        #expect(checks.map(\.0) == ["hashes", "integrity", "map", "recall"])
        #expect(checks.allSatisfy { $0.1 == "passed" }, "\(checks)")
        let suites = try Self.junit(s.path("junit.xml"))
        #expect(suites.count == 1 && suites.values.first?.tests == 4)

        #expect(try s.vpspack("inspect", "--server", "site", "--tour", "room", "--ply", s.path("installed.ply")).status == 0)
        #expect(try s.vpspack("inspect", fixture.pack.path, "--ply", s.path("archive.ply")).status == 0)
        let installedPLY = try Data(contentsOf: URL(fileURLWithPath: s.path("installed.ply")))
        #expect(installedPLY == (try Data(contentsOf: URL(fileURLWithPath: s.path("archive.ply")))))
        #expect(try InspectPictureTests.splitPLY(installedPLY).header.contains("element vertex \(fixture.points)"))
    }
}
