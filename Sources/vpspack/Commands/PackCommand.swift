import Foundation
import PackFormat

/// `vpspack pack DIR -o FILE --tour ID --version N`: a `.vpspack` archive from a folder.
enum PackCommand: Command {
    static let name = "pack"
    static let summary = "make a .vpspack archive from a folder of map/ and attachments/"
    static let help = """
        usage: vpspack pack DIR -o FILE.vpspack --tour ID --version N [--georeference LAT,LON,ALT,HEADING] [--created ISO8601] [--store DIR] [--json]

        Writes an archive (tar + zstd, manifest.json first) of every file under DIR,
        which must hold only map/ and attachments/. The manifest lists each file
        with its length and SHA-256. See docs/pack-format.md.

        options:
          -o, --output FILE      the archive to write (replaced atomically)
          --tour ID              the tour name
          --version N            the pack version (a positive integer)
          --georeference L,L,A,H latitude, longitude, altitude (m), heading (degrees of -Z from north)
          --created ISO8601      creation time (default: now)
          --store DIR            accepted for uniformity; pack does not use the store
          --json                 print the manifest as JSON
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        // --store is accepted as by every command; making an archive does not touch the store.
        let json = try CommonOptions(&arguments).json
        let out = try arguments.option("--output") ?? arguments.option("-o")
        let tour = try arguments.required("--tour")
        let version = try arguments.option("--version", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        let georeference = try arguments.option("--georeference", "LAT,LON,ALT,HEADING") { text -> Manifest.Georeference? in
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4 else { return nil }
            return Manifest.Georeference(latitude: parts[0], longitude: parts[1], altitude: parts[2], heading: parts[3])
        }
        let created = try arguments.option("--created", "an ISO 8601 time such as 2026-11-30T19:00:00Z", ISO8601.parse) ?? Date()
        let positionals = arguments.positionals()
        try arguments.finish()
        guard let out else { throw UsageError("missing -o FILE") }
        guard let version else { throw UsageError("missing --version") }
        guard positionals.count == 1 else { throw UsageError(positionals.isEmpty ? "missing DIR" : "give one DIR") }
        guard TourName.isValid(tour) else { throw UsageError("--tour \(tour): expected 1-128 letters, digits, '.', '_', '-'") }
        let manifest = try PackArchiveWriter.write(
            folder: URL(fileURLWithPath: positionals[0]), to: URL(fileURLWithPath: out),
            tour: tour, version: version, created: created, georeference: georeference
        )
        if json {
            output.json(["archive": out, "manifest": StoreSupport.manifestJSON(manifest)])
        } else {
            output.out("wrote \(out): tour \(tour) version \(version), \(manifest.files.count) files, \(StoreSupport.size(manifest.totalLength))")
        }
        return .success
    }
}
