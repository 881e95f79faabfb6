import Foundation
import Localizer
import PackBuilder
import PackFormat
import PackStore
import PackTransport
import VPSCrypto

/// `vpspack verify --deep`: beyond hashes, loads the map and localizes the
/// pack's validation frames; for a site directory also checks every offer's
/// signature and expiry, and the archive's length and SHA-256 against it.
/// `--junit FILE` writes one JUnit test suite per pack and one test case per check.
enum VerifyDeep {
    /// How a check ended.
    enum Status: String {
        case passed, failed, skipped
    }

    /// One named check of one pack (hashes, integrity, signature, offer, archive, map, recall).
    struct Check {
        var name: String
        var status: Status
        /// What was found: the figures when it passed, the reason when it failed or was skipped.
        var message: String
        var seconds: Double
        /// Extra lines shown under the check (the validation frames of `recall`).
        var details: [String] = []
    }

    /// The checks of one pack: an installed pack, an archive, or one tour of a site.
    struct PackReport {
        var name: String
        var checks: [Check] = []
        var validation: PackValidation.Report?
        /// Share of validation frames within the limits.
        var recall: Double?

        var ok: Bool { !checks.contains { $0.status == .failed } }
    }

    struct Settings {
        var minRecall: Double
        var metres: Double
        var degrees: Double
        var keys: [Ed25519PublicKey]
    }

    static func run(site: String?, archive: String?, installed: (ServerLocation, String)?, common: CommonOptions, junit: String?,
                    settings: Settings, output: Output) throws -> ExitCode {
        var reports: [PackReport] = []
        if let (server, tour) = installed {
            reports.append(try installedReport(server: server.identity, tour: tour, common: common, settings: settings))
        } else if let site {
            reports = siteReports(URL(fileURLWithPath: site), settings: settings)
        } else if let archive {
            reports.append(archiveReport(archive, name: URL(fileURLWithPath: archive).lastPathComponent, settings: settings))
        }
        let ok = reports.allSatisfy(\.ok)
        if common.json {
            output.json(["ok": ok, "minRecall": settings.minRecall, "positionLimit": settings.metres, "rotationLimit": settings.degrees,
                         "packs": reports.map(json)])
        } else {
            for r in reports {
                for c in r.checks {
                    let tag = c.status == .passed ? "ok  " : (c.status == .failed ? "FAIL" : "skip")
                    output.out("\(tag)  \(r.name): \(c.name): \(c.message)")
                    for d in c.details { output.out("        \(d)") }
                }
            }
            let all = reports.flatMap(\.checks)
            let failed = all.filter { $0.status == .failed }.count, skipped = all.filter { $0.status == .skipped }.count
            output.out("\(all.count - failed - skipped) of \(all.count) checks passed" + (skipped > 0 ? ", \(skipped) skipped" : "")
                       + (failed > 0 ? ", \(failed) failed" : ""))
        }
        if let junit { try JUnitReport.write(reports, to: junit) }
        for r in reports {
            for c in r.checks where c.status == .failed { output.err("vpspack verify: \(r.name): \(c.name): \(c.message)") }
        }
        return ok ? .success : .checkFailed
    }

    // MARK: - The three targets

    /// An installed pack: its stored files against the manifest, the store's integrity, then the pack checks.
    static func installedReport(server: String, tour: String, common: CommonOptions, settings: Settings) throws -> PackReport {
        let store = try StoreSupport.open(common)
        var report = PackReport(name: "\(tour)@\(server)")
        var t0 = Date()
        let verified = try store.verify(server: server, tour: tour)
        report.checks.append(Check(
            name: "hashes", status: verified.isClean ? .passed : .failed,
            message: verified.isClean ? "\(verified.filesChecked) stored files match the manifest of version \(verified.version)"
                : verified.damaged.map { "\($0.path): \($0.problem)" }.joined(separator: "; "),
            seconds: Date().timeIntervalSince(t0)))
        t0 = Date()
        let findings = try store.integrityCheck()
        report.checks.append(Check(
            name: "integrity", status: findings.isEmpty ? .passed : .failed,
            message: findings.isEmpty ? "the store database passes SQLite's integrity check" : findings.joined(separator: "; "),
            seconds: Date().timeIntervalSince(t0)))
        packChecks(try store.openPack(server: server, tour: tour), into: &report, settings: settings)
        return report
    }

    /// An archive file: full validation (every entry's length and SHA-256 against the manifest), then the pack checks.
    static func archiveReport(_ path: String, name: String, settings: Settings, into existing: PackReport? = nil) -> PackReport {
        var report = existing ?? PackReport(name: name)
        let t0 = Date()
        do {
            let pack = try ArchivePack(path: path)
            report.checks.append(Check(name: "hashes", status: .passed,
                                       message: "the archive is valid and its \(pack.manifest.files.count) files match the manifest",
                                       seconds: Date().timeIntervalSince(t0)))
            packChecks(pack, into: &report, settings: settings)
        } catch {
            report.checks.append(Check(name: "hashes", status: .failed, message: error.description, seconds: Date().timeIntervalSince(t0)))
            report.checks.append(Check(name: "map", status: .skipped, message: "not loaded: the archive is invalid", seconds: 0))
            report.checks.append(Check(name: "recall", status: .skipped, message: "not measured: the archive is invalid", seconds: 0))
        }
        return report
    }

    /// Every tour of a published site (`tours/<tour>/offer.json`): the offer's
    /// signature and expiry, the archive against the offer, then the archive checks.
    static func siteReports(_ site: URL, settings: Settings) -> [PackReport] {
        let tours = site.appendingPathComponent("tours")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: tours.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else {
            return [PackReport(name: site.lastPathComponent, checks: [
                Check(name: "site", status: .failed, message: "no tours/<tour>/offer.json under \(site.path)", seconds: 0),
            ])]
        }
        return names.map { tourReport(tours.appendingPathComponent($0), tour: $0, settings: settings) }
    }

    private static func tourReport(_ dir: URL, tour: String, settings: Settings) -> PackReport {
        var report = PackReport(name: "tour \(tour)")
        func skipRest(_ why: String) {
            for name in ["archive", "hashes", "map", "recall"] {
                report.checks.append(Check(name: name, status: .skipped, message: why, seconds: 0))
            }
        }
        let t0 = Date()
        let envelope: OfferEnvelope
        do {
            envelope = try OfferEnvelope.decode(try Data(contentsOf: dir.appendingPathComponent("offer.json")))
        } catch {
            report.checks.append(Check(name: "signature", status: .failed, message: "tours/\(tour)/offer.json: \(describe(error).1)", seconds: 0))
            skipRest("not checked: the offer cannot be read")
            return report
        }
        let signers = envelope.signatures.map(\.keyid)
        let offer: Offer
        do {
            if settings.keys.isEmpty {
                offer = try envelope.verifiedOffer(trustedKeys: [], allowUnsigned: true)
                report.checks.append(Check(
                    name: "signature", status: .skipped,
                    message: signers.isEmpty ? "the offer is unsigned" : "signed by key \(signers.joined(separator: ", ")), unknown: give --key PUBKEY to check it",
                    seconds: Date().timeIntervalSince(t0)))
            } else {
                offer = try envelope.verifiedOffer(trustedKeys: settings.keys, allowUnsigned: false)
                report.checks.append(Check(name: "signature", status: .passed,
                                           message: "the offer signature verifies with a given key (\(signers.joined(separator: ", ")))",
                                           seconds: Date().timeIntervalSince(t0)))
            }
        } catch {
            report.checks.append(Check(name: "signature", status: .failed, message: error.description, seconds: Date().timeIntervalSince(t0)))
            skipRest("not checked: the offer is not trusted")
            return report
        }
        var problems: [String] = []
        if offer.tour != tour { problems.append("it names tour '\(offer.tour)' but lies under tours/\(tour)") }
        if offer.expires <= Date() { problems.append("it expired at \(ISO8601.format(offer.expires))") }
        report.checks.append(Check(name: "offer", status: problems.isEmpty ? .passed : .failed,
                                   message: problems.isEmpty ? "version \(offer.version), expires \(ISO8601.format(offer.expires))" : problems.joined(separator: "; "),
                                   seconds: 0))
        let archive = dir.appendingPathComponent(offer.archive.path)
        let t1 = Date()
        guard let data = try? Data(contentsOf: archive) else {
            report.checks.append(Check(name: "archive", status: .failed, message: "cannot read tours/\(tour)/\(offer.archive.path)", seconds: 0))
            for name in ["hashes", "map", "recall"] {
                report.checks.append(Check(name: name, status: .skipped, message: "not checked: no archive", seconds: 0))
            }
            return report
        }
        let sha = SHA256.hash(data).hex
        let mismatch = Int64(data.count) != offer.archive.length ? "\(offer.archive.path) has \(data.count) bytes, the offer says \(offer.archive.length)"
            : (sha != offer.archive.sha256 ? "\(offer.archive.path) has SHA-256 \(sha), the offer says \(offer.archive.sha256)" : nil)
        report.checks.append(Check(name: "archive", status: mismatch == nil ? .passed : .failed,
                                   message: mismatch ?? "\(offer.archive.path) matches the offer (\(data.count) bytes, SHA-256)",
                                   seconds: Date().timeIntervalSince(t1)))
        if mismatch != nil {
            for name in ["hashes", "map", "recall"] {
                report.checks.append(Check(name: name, status: .skipped, message: "not checked: the archive differs from the offer", seconds: 0))
            }
            return report
        }
        return archiveReport(archive.path, name: report.name, settings: settings, into: report)
    }

    // MARK: - Map and validation recall

    /// `map`: the map loads (MapData validation); `recall`: the validation frames
    /// localize within the limits often enough. Shares `PackValidation` with `vpspack evaluate`.
    static func packChecks(_ pack: some PackContents, into report: inout PackReport, settings: Settings) {
        let t0 = Date()
        let localizer: Localizer
        do {
            localizer = try Localizer(pack: pack)
            report.checks.append(Check(name: "map", status: .passed,
                                       message: "\(localizer.map.data.points.count) points, \(localizer.map.data.keyframes.count) keyframes",
                                       seconds: Date().timeIntervalSince(t0)))
        } catch {
            report.checks.append(Check(name: "map", status: .failed, message: describe(error).1, seconds: Date().timeIntervalSince(t0)))
            report.checks.append(Check(name: "recall", status: .skipped, message: "not measured: the map does not load", seconds: 0))
            return
        }
        let t1 = Date()
        let cases: [PackValidation.Case]
        do {
            cases = try PackValidation.cases(in: pack)
        } catch {
            report.checks.append(Check(name: "recall", status: .failed, message: "the validation set does not load: \(describe(error).1)", seconds: 0))
            return
        }
        guard !cases.isEmpty else {
            report.checks.append(Check(name: "recall", status: .failed,
                                       message: "the pack has no validation frames (\(ValidationSet.path)); rebuild it with `vpspack build --validation N`",
                                       seconds: 0))
            return
        }
        let validation = PackValidation.run(cases, localizer: localizer)
        let recall = validation.recall(metres: settings.metres, degrees: settings.degrees)
        report.validation = validation
        report.recall = recall
        let median = validation.medianPositionError.map { String(format: "median %.1f cm, %.2f°", $0 * 100, validation.medianRotationError ?? 0) }
            ?? "none localized"
        var message = String(format: "%.0f %% of %d frames within (%.0f cm, %.1f°), minimum %.0f %%; ",
                             recall * 100, cases.count, settings.metres * 100, settings.degrees, settings.minRecall * 100) + median
        let passed = recall + 1e-9 >= settings.minRecall
        if !passed { message = "recall below the minimum: " + message }
        let details = validation.outcomes.map { o -> String in
            guard let p = o.positionError, let r = o.rotationError else { return "\(o.name): not localized" }
            let within = p <= settings.metres && r <= settings.degrees
            return String(format: "%@: %.1f cm, %.2f°, %d inliers%@", o.name, p * 100, r, o.inliers, within ? "" : " (outside the limits)")
        }
        report.checks.append(Check(name: "recall", status: passed ? .passed : .failed, message: message,
                                   seconds: Date().timeIntervalSince(t1), details: details))
    }

    private static func json(_ r: PackReport) -> [String: Any] {
        var object: [String: Any] = [
            "name": r.name, "ok": r.ok,
            "checks": r.checks.map { ["name": $0.name, "status": $0.status.rawValue, "message": $0.message, "seconds": $0.seconds] as [String: Any] },
        ]
        if let v = r.validation {
            object["validation"] = [
                "frames": v.outcomes.count, "localized": v.localizedCount, "recall": r.recall ?? 0,
                "medianPositionError": v.medianPositionError ?? NSNull(), "medianRotationError": v.medianRotationError ?? NSNull(),
                "outcomes": v.outcomes.map { o -> [String: Any] in
                    ["name": o.name, "localized": o.localized, "inliers": o.inliers,
                     "positionError": o.positionError ?? NSNull(), "rotationError": o.rotationError ?? NSNull()]
                },
            ] as [String: Any]
        }
        return object
    }
}
