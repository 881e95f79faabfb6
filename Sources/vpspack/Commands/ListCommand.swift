import Foundation
import PackFormat
import PackStore

/// `vpspack list`: the installed packs.
enum ListCommand: Command {
    static let name = "list"
    static let summary = "list installed packs"
    static let help = """
        usage: vpspack list [--store DIR] [--json]

        Lists every installed pack: server, tour, version, size, when it was
        installed and when verify last found it intact.

        options:
          --store DIR   the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json        one JSON object on stdout: {"packs": [...]}
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        try arguments.finish()
        let packs = try StoreSupport.open(common).list()
        if common.json {
            output.json(["packs": packs.map { p -> [String: Any] in
                var o: [String: Any] = [
                    "server": p.server, "tour": p.tour, "version": p.version, "size": p.size,
                    "installedAt": ISO8601.format(p.installedAt),
                ]
                o["lastVerified"] = p.lastVerified.map(ISO8601.format) ?? NSNull()
                return o
            }])
            return .success
        }
        guard !packs.isEmpty else {
            output.out("no packs installed; run `vpspack download --server S --tour T`")
            return .success
        }
        let rows = [["SERVER", "TOUR", "VERSION", "SIZE", "INSTALLED", "LAST VERIFIED"]] + packs.map {
            [$0.server, $0.tour, String($0.version), StoreSupport.size($0.size), ISO8601.format($0.installedAt), StoreSupport.date($0.lastVerified)]
        }
        let widths = (0..<6).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            output.out(row.enumerated().map { $0.offset == 5 ? $0.element : $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        return .success
    }
}
