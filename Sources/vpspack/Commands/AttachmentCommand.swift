import Foundation
import PackFormat
import PackStore
import PackTransport

/// `vpspack attachment --server S --tour T NAME`: a host attachment's bytes on stdout.
enum AttachmentCommand: Command {
    static let name = "attachment"
    static let summary = "write a pack's attachment to stdout"
    static let help = """
        usage: vpspack attachment --server S --tour T NAME [--store DIR] [--json]

        Writes the host attachment NAME (given with `download --attach`) to stdout,
        byte for byte. When the pack has no host attachment of that name, its own
        file attachments/NAME is written instead. With --json, lists the attachments.

        options:
          --server S --tour T   the installed pack
          --store DIR           the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json                list the host attachments as JSON instead (NAME not needed)
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        guard let (server, tour) = try StoreSupport.serverAndTour(&arguments) else { throw UsageError("missing --server and --tour") }
        let names = arguments.positionals()
        try arguments.finish()
        let store = try StoreSupport.open(common)
        if common.json {
            guard names.isEmpty else { throw UsageError("--json lists the attachments; give no NAME") }
            let info = try store.info(server: server.identity, tour: tour)
            output.json(["server": server.identity, "tour": tour, "attachments": info.attachments.map {
                ["name": $0.name, "length": $0.length, "sha256": $0.sha256, "addedAt": ISO8601.format($0.addedAt)] as [String: Any]
            }])
            return .success
        }
        guard names.count == 1 else { throw UsageError(names.isEmpty ? "missing NAME" : "give one NAME") }
        output.outBytes(try attachmentBytes(store, server: server.identity, tour: tour, name: names[0]))
        return .success
    }

    /// The host attachment `name`, else the pack's own `attachments/name`.
    private static func attachmentBytes(_ store: PackStore, server: String, tour: String, name: String) throws -> Data {
        let hostNames = try store.info(server: server, tour: tour).attachments.map(\.name)
        if hostNames.contains(name) {
            return try store.attachment(named: name, server: server, tour: tour)
        }
        let pack = try store.openPack(server: server, tour: tour)
        guard pack.contains("attachments/" + name) else { throw StoreError.noSuchAttachment(name: name, server: server, tour: tour) }
        return try pack.data(at: "attachments/" + name)
    }
}
