import Foundation
import PackFormat
import PackStore
import PackTransport

/// Helpers the store commands share: opening the store, naming a pack, formatting.
enum StoreSupport {
    /// Opens the store at `--store`, `$VPSPACK_STORE`, `$XDG_DATA_HOME/vpspack` or `~/.local/share/vpspack`.
    static func open(_ common: CommonOptions) throws -> PackStore {
        try PackStore(directory: StoreLocation.resolve(explicit: common.store))
    }

    /// `--server S --tour T`, both required together; nil when neither is given.
    static func serverAndTour(_ arguments: inout Arguments) throws -> (ServerLocation, String)? {
        let server = try arguments.option("--server")
        let tour = try arguments.option("--tour")
        switch (server, tour) {
        case (nil, nil): return nil
        case (let s?, let t?):
            do { return (try ServerLocation.parse(s), t) } catch { throw UsageError("--server \(s): \(error.description)") }
        case (nil, _): throw UsageError("--tour needs --server")
        case (_, nil): throw UsageError("--server needs --tour")
        }
    }

    /// Byte counts for people: `1.9 MB` (decimal units), exact below 1 kB.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func date(_ date: Date?) -> String {
        date.map(ISO8601.format) ?? "never"
    }

    static func manifestJSON(_ manifest: Manifest) -> [String: Any] {
        var object: [String: Any] = [
            "format": manifest.format, "tour": manifest.tour, "version": manifest.version,
            "created": ISO8601.format(manifest.created), "frame": manifest.frame,
            "files": manifest.files.map { ["path": $0.path, "length": $0.length, "sha256": $0.sha256] as [String: Any] },
        ]
        if let g = manifest.georeference {
            object["georeference"] = ["latitude": g.latitude, "longitude": g.longitude, "altitude": g.altitude, "heading": g.heading]
        }
        return object
    }

    static func manifestLines(_ manifest: Manifest) -> [String] {
        var lines = [
            "tour \(manifest.tour), version \(manifest.version) (pack format \(manifest.format))",
            "created \(ISO8601.format(manifest.created))",
            "frame \(manifest.frame)",
        ]
        if let g = manifest.georeference {
            lines.append("georeference latitude \(g.latitude), longitude \(g.longitude), altitude \(g.altitude) m, heading \(g.heading)°")
        } else {
            lines.append("georeference none")
        }
        lines.append("files (\(manifest.files.count), \(size(manifest.totalLength))):")
        let width = manifest.files.map { String($0.length).count }.max() ?? 1
        for file in manifest.files {
            let length = String(file.length)
            lines.append("  " + String(repeating: " ", count: width - length.count) + length + "  " + file.sha256 + "  " + file.path)
        }
        return lines
    }

    /// The error for a tour that is not installed (exit 3).
    static func notDownloaded(_ server: ServerLocation, _ tour: String) -> StoreError {
        .notDownloaded(server: server.identity, tour: tour)
    }
}

extension Output {
    /// Writes `text` to stderr without a newline (a progress line redrawn with `\r`).
    func errPartial(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
