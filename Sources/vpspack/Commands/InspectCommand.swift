import Foundation
import PackFormat
import PackStore
import PackTransport

/// `vpspack inspect (--server S --tour T | ARCHIVE)`: manifest, files, attachments.
enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "show a pack's manifest, files and attachments"
    static let help = """
        usage: vpspack inspect (--server S --tour T | ARCHIVE) [--store DIR] [--json] [--preview FILE.png] [--ply FILE.ply]

        Shows the manifest (tour, version, created, frame, georeference), every file
        with its length and SHA-256, and the host attachments of an installed pack;
        or the same for an archive file, which is fully validated first.

        options:
          --server S --tour T   an installed pack
          ARCHIVE               a .vpspack file
          --store DIR           the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --json                one JSON object on stdout
          --preview FILE.png    draw the map from above (x right, -z up): points coloured by floor (by height
                                when there is one floor), keyframes with heading ticks, a scale bar
          --ply FILE.ply        export the map points as binary little-endian PLY (x y z, and red green blue
                                when the pack has colours) for MeshLab or CloudCompare; see docs/inspect.md
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let preview = try arguments.option("--preview")
        let ply = try arguments.option("--ply")
        let target = try StoreSupport.serverAndTour(&arguments)
        let positionals = arguments.positionals()
        try arguments.finish()
        switch (target, positionals.count) {
        case (let (server, tour)?, 0):
            let store = try StoreSupport.open(common)
            let info = try store.info(server: server.identity, tour: tour)
            let pictures = try InspectPictures.write(try store.openPack(server: server.identity, tour: tour), preview: preview, ply: ply, output: output)
            if common.json {
                var object = StoreSupport.manifestJSON(info.manifest)
                object["server"] = info.server
                object["installedAt"] = ISO8601.format(info.installedAt)
                object["lastVerified"] = info.lastVerified.map(ISO8601.format) ?? NSNull()
                object["size"] = info.size
                object["attachments"] = info.attachments.map { ["name": $0.name, "length": $0.length, "sha256": $0.sha256] as [String: Any] }
                if let length = info.archiveLength, let sha = info.archiveSHA256 { object["archive"] = ["length": length, "sha256": sha] }
                if !pictures.isEmpty { object["pictures"] = pictures }
                output.json(object)
            } else {
                output.out("server \(info.server)")
                for line in StoreSupport.manifestLines(info.manifest) { output.out(line) }
                output.out("attachments (\(info.attachments.count)):")
                for a in info.attachments { output.out("  \(a.length)  \(a.sha256)  \(a.name)") }
                output.out("installed \(ISO8601.format(info.installedAt)), last verified \(StoreSupport.date(info.lastVerified))")
            }
        case (nil, 1):
            let pack = try ArchivePack(path: positionals[0])
            let pictures = try InspectPictures.write(pack, preview: preview, ply: ply, output: output)
            if common.json {
                var object = StoreSupport.manifestJSON(pack.manifest)
                object["archive"] = positionals[0]
                if !pictures.isEmpty { object["pictures"] = pictures }
                output.json(object)
            } else {
                output.out("archive \(positionals[0])")
                for line in StoreSupport.manifestLines(pack.manifest) { output.out(line) }
            }
        default:
            throw UsageError("give either --server S --tour T or one ARCHIVE")
        }
        return .success
    }
}
