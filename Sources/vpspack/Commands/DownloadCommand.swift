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
          --json             one JSON object on stdout
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
            attachments.append(HostAttachment(name: url.lastPathComponent, file: url))
        }
        let store = try StoreSupport.open(common)
        let downloader = Downloader(store: store, server: server, transport: try makeTransport(for: server))
        var lastShown = Date.distantPast
        let outcome = try downloader.download(tour: tour, allowUnsigned: allowUnsigned, attachments: attachments) { progress in
            guard output.stderrIsTerminal, !common.json else { return }
            let now = Date()
            guard now.timeIntervalSince(lastShown) > 0.2 || progress.bytes == progress.total else { return }
            lastShown = now
            let percent = progress.total > 0 ? Int(progress.bytes * 100 / progress.total) : 100
            output.errPartial("\rdownloading \(tour): \(StoreSupport.size(progress.bytes)) of \(StoreSupport.size(progress.total)) (\(percent)%)")
        }
        if output.stderrIsTerminal && !common.json { output.errPartial("\r\u{1b}[K") }
        switch outcome {
        case .alreadyUpToDate(let version):
            if common.json {
                output.json(["server": server.identity, "tour": tour, "version": version, "status": "up-to-date"])
            } else {
                output.out("tour \(tour) from \(server.identity) is already up to date (version \(version))")
            }
        case .installed(let result, _):
            if common.json {
                var object: [String: Any] = [
                    "server": server.identity, "tour": tour, "version": result.version, "status": "installed",
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
