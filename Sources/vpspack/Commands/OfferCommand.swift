import Foundation
import PackFormat
import PackStore
import PackTransport

/// `vpspack offer --server S --tour T`: what the server offers and whether it is installed.
enum OfferCommand: Command {
    static let name = "offer"
    static let summary = "show what a server offers for a tour"
    static let help = """
        usage: vpspack offer --server S --tour T [--allow-unsigned] [--store DIR] [--json]

        Fetches and checks tours/T/offer.json from the server (a directory, file://,
        http:// or https:// URL): version, size, created and expiry times, the key
        that signed it, and whether that version is installed.

        options:
          --server S         the server
          --tour T           the tour
          --allow-unsigned   accept an offer no pinned key signed
          --store DIR        the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json             one JSON object on stdout
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let allowUnsigned = arguments.flag("--allow-unsigned")
        guard let (server, tour) = try StoreSupport.serverAndTour(&arguments) else { throw UsageError("missing --server and --tour") }
        try arguments.finish()
        let store = try StoreSupport.open(common)
        let downloader = Downloader(store: store, server: server, transport: try makeTransport(for: server))
        let checked = try downloader.checkOffer(tour: tour, allowUnsigned: allowUnsigned)
        let offer = checked.offer
        let status: String
        switch checked.installedVersion {
        case nil: status = "not-installed"
        case offer.version?: status = "up-to-date"
        default: status = "update-available"
        }
        if common.json {
            var object: [String: Any] = [
                "server": server.identity, "tour": tour, "version": offer.version, "format": offer.format,
                "created": ISO8601.format(offer.created), "expires": ISO8601.format(offer.expires),
                "archive": ["path": offer.archive.path, "length": offer.archive.length, "sha256": offer.archive.sha256],
                "signedBy": checked.signedBy, "status": status,
            ]
            if let installed = checked.installedVersion { object["installedVersion"] = installed }
            output.json(object)
        } else {
            output.out("tour \(tour) from \(server.identity)")
            output.out("offered version \(offer.version), \(StoreSupport.size(offer.archive.length)) (\(offer.archive.path), pack format \(offer.format))")
            output.out("created \(ISO8601.format(offer.created)), expires \(ISO8601.format(offer.expires))")
            output.out(checked.signedBy.isEmpty ? "unsigned (accepted with --allow-unsigned)" : "signed by pinned key \(checked.signedBy.joined(separator: ", "))")
            switch status {
            case "not-installed": output.out("not installed")
            case "up-to-date": output.out("installed: version \(offer.version), up to date")
            default: output.out("installed: version \(checked.installedVersion ?? 0), update available")
            }
        }
        return .success
    }
}
