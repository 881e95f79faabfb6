import Foundation
import PackFormat
import PackStore
import PackTransport

/// `vpspack remove (--server S --tour T | --all)`: delete packs and give the space back.
enum RemoveCommand: Command {
    static let name = "remove"
    static let summary = "remove installed packs and free their disk space"
    static let help = """
        usage: vpspack remove (--server S --tour T | --all) [--store DIR] [--json]

        Deletes a pack (or every pack) with its attachments, drops content no other
        pack shares, and returns the freed pages to the file system.

        options:
          --server S --tour T   one installed pack
          --all                 every installed pack
          --store DIR           the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json                one JSON object on stdout: {"removed": [...], "storeBytes": N}
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let all = arguments.flag("--all")
        let target = try StoreSupport.serverAndTour(&arguments)
        try arguments.finish()
        guard all != (target != nil) else { throw UsageError("give either --server S --tour T or --all") }
        let store = try StoreSupport.open(common)
        let before = store.diskUsage()
        var removed: [(server: String, tour: String, version: Int)] = []
        if let (server, tour) = target {
            removed.append((server.identity, tour, try store.remove(server: server.identity, tour: tour)))
        } else {
            removed = try store.removeAll()
        }
        let after = store.diskUsage()
        if common.json {
            output.json([
                "removed": removed.map { ["server": $0.server, "tour": $0.tour, "version": $0.version] as [String: Any] },
                "storeBytesBefore": before, "storeBytes": after,
            ])
        } else {
            for r in removed { output.out("removed tour \(r.tour) version \(r.version) from \(r.server)") }
            if removed.isEmpty { output.out("no packs installed") }
            output.out("store size \(StoreSupport.size(before)) -> \(StoreSupport.size(after))")
        }
        return .success
    }
}
