import Foundation
import Localizer
import PackBuilder
import PackFormat
import PackStore
import PackTransport
import VPSCrypto

/// `vpspack verify --deep`: beyond hashes, loads the map and localizes the
/// pack's validation frames; for a site directory also checks every offer's
/// signature, expiry, and the archive's length and SHA-256 against it.
/// `--junit FILE` writes each check as a JUnit test case.
enum VerifyDeep {
    /// One named check and its outcome.
    struct Check {
        var suite: String
        var name: String
        var failure: String?
        var seconds: Double
        /// A validation frame: shown (and a failed JUnit case when missed), but only the recall decides the exit status.
        var informational = false
    }

    struct Settings {
        var minRecall: Double
        var metres: Double
        var degrees: Double
        var keys: [Ed25519PublicKey]
    }

    static func run(archive: String?, installed: (ServerLocation, String)?, common: CommonOptions, junit: String?,
                    settings: Settings, output: Output) throws -> ExitCode {
        var checks: [Check] = []
        if let (server, tour) = installed {
            let store = try StoreSupport.open(common)
            let suite = "\(tour)@\(server.identity)"
            let t0 = Date()
            let report = try store.verify(server: server.identity, tour: tour)
            checks.append(Check(suite: suite, name: "stored files match the manifest",
                                failure: report.isClean ? nil : report.damaged.map { "\($0.path): \($0.problem)" }.joined(separator: "; "),
                                seconds: Date().timeIntervalSince(t0)))
            let pack = try store.openPack(server: server.identity, tour: tour)
            checks += packChecks(pack, suite: suite, settings: settings)
        } else if let archive {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: archive, isDirectory: &isDirectory), isDirectory.boolValue {
                checks += siteChecks(URL(fileURLWithPath: archive), settings: settings)
            } else {
                checks += archiveChecks(archive, suite: URL(fileURLWithPath: archive).lastPathComponent, settings: settings)
            }
        }
        for c in checks {
            if let f = c.failure {
                output.out("\(c.informational ? "miss" : "FAIL")  \(c.suite): \(c.name): \(f)")
            } else {
                output.out("ok    \(c.suite): \(c.name)")
            }
        }
        let failed = checks.filter { $0.failure != nil && !$0.informational }
        let missed = checks.filter { $0.failure != nil && $0.informational }.count
        output.out("\(checks.count - failed.count - missed) of \(checks.count) checks passed" + (missed > 0 ? ", \(missed) validation frames missed" : ""))
        if let junit { try writeJUnit(checks, to: junit) }
        for f in failed { output.err("vpspack verify: \(f.suite): \(f.name): \(f.failure!)") }
        return failed.isEmpty ? .success : .checkFailed
    }

    /// Archive validation (every file's length and hash), then the pack checks.
    static func archiveChecks(_ path: String, suite: String, settings: Settings) -> [Check] {
        let t0 = Date()
        do {
            let pack = try ArchivePack(path: path)
            return [Check(suite: suite, name: "archive is valid and every file matches the manifest", failure: nil, seconds: Date().timeIntervalSince(t0))]
                + packChecks(pack, suite: suite, settings: settings)
        } catch {
            return [Check(suite: suite, name: "archive is valid and every file matches the manifest", failure: error.description, seconds: Date().timeIntervalSince(t0))]
        }
    }

    /// The map loads; each validation frame localizes within the thresholds; the recall reaches the minimum.
    static func packChecks(_ pack: some PackContents, suite: String, settings: Settings) -> [Check] {
        var checks: [Check] = []
        let t0 = Date()
        let localizer: Localizer
        do {
            localizer = try Localizer(pack: pack)
            checks.append(Check(suite: suite, name: "map loads (\(localizer.map.data.points.count) points, \(localizer.map.data.keyframes.count) keyframes)",
                                failure: nil, seconds: Date().timeIntervalSince(t0)))
        } catch {
            checks.append(Check(suite: suite, name: "map loads", failure: "\(error)", seconds: Date().timeIntervalSince(t0)))
            return checks
        }
        let cases: [PackValidation.Case]
        do {
            cases = try PackValidation.cases(in: pack)
        } catch {
            checks.append(Check(suite: suite, name: "validation set loads", failure: "\(error)", seconds: 0))
            return checks
        }
        guard !cases.isEmpty else {
            checks.append(Check(suite: suite, name: "validation set present", failure: "the pack has no \(ValidationSet.path); rebuild it with `vpspack build --validation N`", seconds: 0))
            return checks
        }
        let report = PackValidation.run(cases, localizer: localizer)
        for o in report.outcomes {
            var failure: String?
            if let p = o.positionError, let r = o.rotationError {
                if p > settings.metres || r > settings.degrees {
                    failure = String(format: "off by %.1f cm and %.2f° (limit %.0f cm, %.1f°)", p * 100, r, settings.metres * 100, settings.degrees)
                }
            } else {
                failure = "not localized"
            }
            let detail = o.positionError.map { String(format: " (%.1f cm, %.2f°)", $0 * 100, o.rotationError ?? 0) } ?? ""
            checks.append(Check(suite: suite, name: "validation frame \(o.name) localizes\(failure == nil ? detail : "")", failure: failure,
                                seconds: o.milliseconds / 1000, informational: true))
        }
        let recall = report.recall(metres: settings.metres, degrees: settings.degrees)
        let text = String(format: "validation recall %.0f %% at (%.0f cm, %.1f°), minimum %.0f %%", recall * 100, settings.metres * 100, settings.degrees, settings.minRecall * 100)
        checks.append(Check(suite: suite, name: text, failure: recall + 1e-9 < settings.minRecall ? "recall below the minimum" : nil, seconds: 0))
        return checks
    }

    /// Every tour of a published site: the offer's signature (with --key) and
    /// expiry, the archive's length and SHA-256 against the offer, then the archive checks.
    static func siteChecks(_ site: URL, settings: Settings) -> [Check] {
        let tours = site.appendingPathComponent("tours")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: tours.path)) ?? []).sorted()
        guard !names.isEmpty else {
            return [Check(suite: site.lastPathComponent, name: "site has tours", failure: "no tours/<tour>/offer.json under \(site.path)", seconds: 0)]
        }
        var checks: [Check] = []
        for tour in names {
            let dir = tours.appendingPathComponent(tour)
            let suite = "site tour \(tour)"
            let t0 = Date()
            let offer: Offer
            do {
                let envelope = try OfferEnvelope.decode(try Data(contentsOf: dir.appendingPathComponent("offer.json")))
                offer = try envelope.verifiedOffer(trustedKeys: settings.keys, allowUnsigned: settings.keys.isEmpty)
                let signedBy = envelope.signatures.map(\.keyid).joined(separator: ", ")
                if settings.keys.isEmpty {
                    checks.append(Check(suite: suite, name: "offer parses (signed by \(signedBy.isEmpty ? "nobody" : signedBy); give --key to check signatures)",
                                        failure: envelope.signatures.isEmpty ? "the offer is unsigned" : nil, seconds: Date().timeIntervalSince(t0)))
                } else {
                    checks.append(Check(suite: suite, name: "offer signature verifies (\(signedBy))", failure: nil, seconds: Date().timeIntervalSince(t0)))
                }
            } catch {
                checks.append(Check(suite: suite, name: "offer is valid and signed", failure: "\(error)", seconds: Date().timeIntervalSince(t0)))
                continue
            }
            checks.append(Check(suite: suite, name: "offer names tour \(tour)", failure: offer.tour == tour ? nil : "it names '\(offer.tour)'", seconds: 0))
            checks.append(Check(suite: suite, name: "offer not expired (expires \(ISO8601.format(offer.expires)))",
                                failure: offer.expires > Date() ? nil : "expired", seconds: 0))
            let archive = dir.appendingPathComponent(offer.archive.path)
            let t1 = Date()
            if let data = try? Data(contentsOf: archive) {
                let sha = SHA256.hash(data).hex
                let failure = Int64(data.count) != offer.archive.length ? "length \(data.count), offer says \(offer.archive.length)"
                    : (sha != offer.archive.sha256 ? "SHA-256 \(sha), offer says \(offer.archive.sha256)" : nil)
                checks.append(Check(suite: suite, name: "archive \(offer.archive.path) matches the offer", failure: failure, seconds: Date().timeIntervalSince(t1)))
                if failure == nil { checks += archiveChecks(archive.path, suite: suite, settings: settings) }
            } else {
                checks.append(Check(suite: suite, name: "archive \(offer.archive.path) present", failure: "cannot read \(archive.path)", seconds: 0))
            }
        }
        return checks
    }

    /// JUnit XML: one test suite per pack or tour, one test case per check.
    static func writeJUnit(_ checks: [Check], to path: String) throws {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var suites: [String] = []
        var order: [String: [Check]] = [:]
        for c in checks {
            if order[c.suite] == nil { suites.append(c.suite) }
            order[c.suite, default: []].append(c)
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"vpspack verify --deep\" tests=\"\(checks.count)\" failures=\"\(checks.filter { $0.failure != nil }.count)\">\n"
        for s in suites {
            let cs = order[s]!
            xml += "  <testsuite name=\"\(escape(s))\" tests=\"\(cs.count)\" failures=\"\(cs.filter { $0.failure != nil }.count)\">\n"
            for c in cs {
                let time = String(format: "%.3f", c.seconds)
                if let f = c.failure {
                    xml += "    <testcase classname=\"vpspack.verify\" name=\"\(escape(c.name))\" time=\"\(time)\">\n"
                    xml += "      <failure message=\"\(escape(f))\"/>\n    </testcase>\n"
                } else {
                    xml += "    <testcase classname=\"vpspack.verify\" name=\"\(escape(c.name))\" time=\"\(time)\"/>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
