import Foundation
import PackBuilder
import PackFormat
import PackStore
import PackTransport
import VPSCrypto

/// `vpspack verify (--server S --tour T | --all | ARCHIVE)`: re-hash content, check the database.
enum VerifyCommand: Command {
    static let name = "verify"
    static let summary = "re-hash installed packs (or an archive) against their manifests"
    static let help = """
        usage: vpspack verify (--server S --tour T | --all | ARCHIVE) [--store DIR] [--json]
               vpspack verify --deep (--server S --tour T | ARCHIVE | --site DIR | DIR) [--min-recall R]
                              [--key PUBKEY]... [--junit FILE] [--store DIR] [--json]

        Re-hashes every stored file of a pack (or of every pack with --all) against
        its manifest and runs SQLite's integrity check over the store; or fully
        validates an archive file (for CI). Exits 1 naming each damaged file.

        With --deep, also loads the map and localizes the pack's validation frames
        (recorded by `vpspack build`), reporting recall within (25 cm, 2°) and the
        median errors; exits 1 when any check fails or the recall is below
        --min-recall. A site directory (made by `vpspack publish`) is checked
        tour by tour: offer signature and expiry, archive length and SHA-256
        against the offer, then the archive's own checks. See docs/inspect.md.

        options:
          --server S --tour T   one installed pack
          --all                 every installed pack (not with --deep)
          ARCHIVE               a .vpspack file
          --store DIR           the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json                one JSON object on stdout
          --deep                also check that the map loads and the validation frames localize
          --site DIR, DIR       with --deep, every tour of a published site directory
          --min-recall R        with --deep, the validation recall that passes, in [0, 1] (default 0.9)
          --key PUBKEY          with --deep on a site, check offer signatures against this key (64 hex
                                digits; repeatable); without it signatures are reported, not checked
          --junit FILE          with --deep, write JUnit XML: one test suite per pack, one test case per check
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let all = arguments.flag("--all")
        let deep = arguments.flag("--deep")
        let junit = try arguments.option("--junit")
        let minRecall = try arguments.option("--min-recall", "a number in [0, 1]") { Double($0).flatMap { (0...1).contains($0) ? $0 : nil } }
        let keys = try arguments.options("--key")
        let site = try arguments.option("--site")
        let target = try StoreSupport.serverAndTour(&arguments)
        let positionals = arguments.positionals()
        try arguments.finish()
        if deep {
            let choices = (target == nil ? 0 : 1) + (site == nil ? 0 : 1) + positionals.count
            guard !all, choices == 1 else {
                throw UsageError("--deep takes one of --server S --tour T, one ARCHIVE, or one site directory (--site DIR)")
            }
            let pinned = try keys.map { text throws(UsageError) in
                guard let bytes = Hex.decode(text), let key = try? Ed25519PublicKey(rawRepresentation: bytes) else {
                    throw UsageError("--key \(text): expected 64 hex digits")
                }
                return key
            }
            var siteDirectory = site
            var isDirectory: ObjCBool = false
            if let path = positionals.first, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                siteDirectory = path
            }
            for path in [siteDirectory ?? positionals.first].compactMap({ $0 }) where !FileManager.default.fileExists(atPath: path) {
                throw BuildError(.io, "cannot verify \(path): no such file or directory")
            }
            guard keys.isEmpty || siteDirectory != nil else { throw UsageError("--key checks offer signatures: it needs a site directory") }
            let settings = VerifyDeep.Settings(minRecall: minRecall ?? 0.9, metres: 0.25, degrees: 2, keys: pinned)
            return try VerifyDeep.run(site: siteDirectory, archive: positionals.first, installed: target, common: common, junit: junit,
                                      settings: settings, output: output)
        }
        guard junit == nil, minRecall == nil, keys.isEmpty, site == nil else { throw UsageError("--junit, --min-recall, --key and --site need --deep") }
        let choices = (all ? 1 : 0) + (target == nil ? 0 : 1) + (positionals.isEmpty ? 0 : 1)
        guard choices == 1, positionals.count <= 1 else { throw UsageError("give one of --server S --tour T, --all, or one ARCHIVE") }
        if let archive = positionals.first { return verifyArchive(archive, json: common.json, output) }

        let store = try StoreSupport.open(common)
        var reports: [VerifyReport] = []
        if let (server, tour) = target {
            reports.append(try store.verify(server: server.identity, tour: tour))
        } else {
            for pack in try store.list() {
                // A pack removed by another process meanwhile is skipped.
                if let report = try verifyIfInstalled(store, server: pack.server, tour: pack.tour) { reports.append(report) }
            }
        }
        let integrity = try store.integrityCheck()
        let ok = integrity.isEmpty && reports.allSatisfy(\.isClean)
        if common.json {
            output.json([
                "ok": ok, "integrity": integrity,
                "packs": reports.map { r -> [String: Any] in
                    [
                        "server": r.server, "tour": r.tour, "version": r.version, "ok": r.isClean,
                        "filesChecked": r.filesChecked, "bytesChecked": r.bytesChecked,
                        "damaged": r.damaged.map { ["path": $0.path, "problem": $0.problem] },
                    ]
                },
            ])
        } else {
            for r in reports {
                if r.isClean {
                    output.out("ok: tour \(r.tour) version \(r.version) from \(r.server): \(r.filesChecked) files, \(StoreSupport.size(r.bytesChecked))")
                } else {
                    output.out("DAMAGED: tour \(r.tour) version \(r.version) from \(r.server): \(r.damaged.count) of \(r.filesChecked) files")
                }
            }
            if all && reports.isEmpty { output.out("no packs installed") }
        }
        for r in reports {
            for d in r.damaged {
                output.err("vpspack verify: \(d.path) of tour '\(r.tour)' from \(r.server) is damaged: \(d.problem)")
            }
        }
        for finding in integrity { output.err("vpspack verify: the store database fails its integrity check: \(finding)") }
        if !ok {
            output.err("vpspack verify: run `vpspack download` again for each damaged pack to restore it")
        }
        return ok ? .success : .checkFailed
    }

    private static func verifyIfInstalled(_ store: PackStore, server: String, tour: String) throws -> VerifyReport? {
        do {
            return try store.verify(server: server, tour: tour)
        } catch {
            if case .notDownloaded = error { return nil }
            throw error
        }
    }

    private static func verifyArchive(_ path: String, json: Bool, _ output: Output) -> ExitCode {
        do {
            let pack = try ArchivePack(path: path)
            let m = pack.manifest
            if json {
                output.json(["ok": true, "archive": path, "tour": m.tour, "version": m.version, "files": m.files.count, "bytes": m.totalLength])
            } else {
                output.out("ok: \(path): tour \(m.tour) version \(m.version), \(m.files.count) files, \(StoreSupport.size(m.totalLength))")
            }
            return .success
        } catch {
            let message = error.description
            if json {
                var object: [String: Any] = ["ok": false, "archive": path, "error": message]
                if let file = error.filePath { object["damaged"] = [file] }
                output.json(object)
            }
            // Name the archive once: some errors (opening it) already carry its path.
            output.err("vpspack verify: " + (message.contains(path) ? message : "\(path): \(message)"))
            if case .io = error { return .ioError }
            return .checkFailed
        }
    }
}
