import Foundation
import PackFormat
import PackStore
import PackTransport

/// `vpspack download --server S --tour T`: fetch, verify and commit the offered version.
enum DownloadCommand: Command {
    static let name = "download"
    static let summary = "download, verify and install the pack a server offers"
    static let help = """
        usage: vpspack download --server S --tour T [--attach FILE]... [--allow-unsigned] [--store DIR] [--json]

        Fetches the signed offer, checks it (pinned key, tour, format, expiry, no
        rollback), streams the archive into a partial file in the store while
        hashing it (a later run resumes it), checks length and SHA-256 against the
        offer, and commits the pack in one transaction. Prints "already up to date"
        when the offered version is installed.

        options:
          --server S         the server (a directory, file://, http:// or https:// URL)
          --tour T           the tour
          --attach FILE      a host attachment committed with the pack, named by its file name (repeatable)
          --allow-unsigned   accept an offer no pinned key signed
          --store DIR        the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json             progress events, then the result, as JSON lines on stdout

        Progress: a line redrawn in place when stdout is a terminal, a plain line
        every 5 seconds otherwise. Ctrl-C stops the transfer and keeps the partial
        download (exit 130); the same command resumes it. HTTP(S) timeouts and
        retries: see docs/network.md (VPSPACK_HTTP_* environment variables).
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let allowUnsigned = arguments.flag("--allow-unsigned")
        let attachFiles = try arguments.options("--attach")
        guard let (server, tour) = try StoreSupport.serverAndTour(&arguments) else { throw UsageError("missing --server and --tour") }
        try arguments.finish()
        var attachments: [HostAttachment] = []
        for path in attachFiles {
            let url = URL(fileURLWithPath: path)
            guard FileManager.default.isReadableFile(atPath: url.path) else { throw UsageError("--attach \(path): no such readable file") }
            guard !attachments.contains(where: { $0.name == url.lastPathComponent }) else {
                throw UsageError("--attach \(path): another attached file is also named \(url.lastPathComponent)")
            }
            attachments.append(HostAttachment(name: url.lastPathComponent, file: url))
        }
        let store = try StoreSupport.open(common)
        let cancellation = CancellationFlag()
        let downloader = Downloader(store: store, server: server, transport: try makeTransport(for: server, cancellation: cancellation))
        let progress = ProgressDisplay(output: output, json: common.json, label: tour)
        let interrupt = InterruptHandler(raising: cancellation)
        let outcome: DownloadOutcome
        do {
            outcome = try downloader.download(tour: tour, allowUnsigned: allowUnsigned, attachments: attachments) { p in
                progress.update(bytes: p.bytes, total: p.total)
            }
        } catch {
            interrupt.stop()
            progress.finish()
            guard case .transport(.interrupted) = error else { throw error }
            output.err("vpspack download: interrupted; the partial download is kept in \(store.downloadsDirectory.path): run the same command again to resume")
            return .interrupted
        }
        interrupt.stop()
        progress.finish()
        switch outcome {
        case .alreadyUpToDate(let version):
            if common.json {
                output.json(["event": "result", "server": server.identity, "tour": tour, "version": version, "status": "up-to-date"])
            } else {
                output.out("tour \(tour) from \(server.identity) is already up to date (version \(version))")
            }
        case .installed(let result, _):
            if common.json {
                var object: [String: Any] = [
                    "event": "result", "server": server.identity, "tour": tour, "version": result.version, "status": "installed",
                    "newFiles": result.newFiles, "sharedFiles": result.sharedFiles,
                ]
                if let previous = result.previousVersion { object["previousVersion"] = previous }
                output.json(object)
            } else {
                let from = result.previousVersion.map { " (was version \($0))" } ?? ""
                output.out("installed tour \(tour) version \(result.version) from \(server.identity)\(from): \(result.newFiles) files stored, \(result.sharedFiles) already present")
            }
        }
        return .success
    }
}
