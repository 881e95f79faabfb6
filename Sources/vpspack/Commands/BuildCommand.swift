import Foundation
import PackBuilder
import PackFormat

/// `vpspack build`: a pack from a posed capture (transforms.json) or a COLMAP model.
enum BuildCommand: Command {
    static let name = "build"
    static let summary = "build a pack from a transforms.json capture or a COLMAP model"
    static let help = """
        usage: vpspack build (--transforms FILE [--images DIR] | --colmap MODEL_DIR --images DIR)
                             -o PACK.vpspack --tour ID --version N [--georef LAT,LON,ALT,HEADING]
                             [--attach FILE]... [--validation N] [--features N] [--storey M]
                             [--max-dimension N] [--scale S] [--keep-axes] [--created ISO8601] [--json]

        Extracts features in every frame; back-projects them through depth images
        (or triangulates them across neighbouring frames when there is no depth),
        merges the observations of each 3D point, drops unstable points, and
        writes the map, keyframes, a validation set of held-out frames, and the
        attachments as a .vpspack archive with its manifest. With --colmap, every
        observation of every 3D point of the model is described at our corners
        nearest it (points with none nearby are left out). See docs/building.md.

        options:
          --transforms FILE     an instant-ngp / nerfstudio transforms.json
          --colmap DIR          a COLMAP model (cameras, images, points3D; .txt or .bin)
          --images DIR          where the frame images are (by file name)
          -o, --output FILE     the archive to write
          --tour ID             the tour name
          --version N           the pack version (a positive integer)
          --georef L,L,A,H      latitude, longitude, altitude (m), heading of -Z (degrees from north)
          --attach FILE         a host attachment (repeatable), stored under attachments/
          --validation N        frames held out as the validation set (default: 1 in 10, at most 8)
          --features N          features per frame (default 2000; not used with --colmap)
          --storey M            storey height for floor numbers (default 3)
          --max-dimension N     decode frames reduced by 2, 4 or 8 while the longer side stays >= N
          --scale S             COLMAP: metres per model unit (default 1)
          --keep-axes           COLMAP: keep the model's axes (default: rotate its mean camera up to +Y)
          --created ISO8601     creation time in the manifest (default: now); fix it for reproducible packs
          --json                print a JSON summary
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let transforms = try arguments.option("--transforms")
        let colmap = try arguments.option("--colmap")
        let images = try arguments.option("--images")
        let out = try arguments.option("--output") ?? arguments.option("-o")
        let tour = try arguments.required("--tour")
        let version = try arguments.option("--version", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        let georef = try arguments.option("--georef", "LAT,LON,ALT,HEADING (four numbers)") { text -> (Double, Double, Double, Double)? in
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, abs(parts[0]) <= 90, abs(parts[1]) <= 180, parts.allSatisfy(\.isFinite) else { return nil }
            return (parts[0], parts[1], parts[2], parts[3])
        }
        let attachments = try arguments.options("--attach")
        let validation = try arguments.option("--validation", "a non-negative integer") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        let features = try arguments.option("--features", "an integer from 100 to 20000") { Int($0).flatMap { (100...20000).contains($0) ? $0 : nil } }
        let storey = try arguments.option("--storey", "a positive number of metres") { Double($0).flatMap { $0 > 0 ? $0 : nil } }
        let scale = try arguments.option("--scale", "a positive number") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        let keepAxes = arguments.flag("--keep-axes")
        let created = try arguments.option("--created", "an ISO 8601 time such as 2026-11-30T19:00:00Z", ISO8601.parse)
        let maxDimension = try arguments.option("--max-dimension", "an integer of at least 64") { Int($0).flatMap { $0 >= 64 ? $0 : nil } }
        try arguments.finish()
        guard let out else { throw UsageError("missing -o PACK.vpspack") }
        guard let version else { throw UsageError("missing --version") }
        guard (transforms == nil) != (colmap == nil) else { throw UsageError("give either --transforms FILE or --colmap MODEL_DIR") }
        if colmap != nil, images == nil { throw UsageError("--colmap needs --images DIR") }
        if transforms != nil, scale != nil || keepAxes { throw UsageError("--scale and --keep-axes apply to --colmap only") }

        var options = BuildOptions(tour: tour, version: version)
        options.georeference = georef.map { (latitude: $0.0, longitude: $0.1, altitude: $0.2, heading: $0.3) }
        options.attachments = attachments.map { URL(fileURLWithPath: $0) }
        options.validationFrames = validation
        if let features { options.maxFeatures = features }
        if let storey { options.storey = storey }
        if let scale { options.scale = scale }
        options.estimateUp = !keepAxes
        options.maxDimension = maxDimension
        if let created { options.created = created }
        options.imagesDirectory = images.map { URL(fileURLWithPath: $0) }

        let bar = ProgressLine(output: output, label: "building")
        let report: (BuildProgress) -> Void = { bar.update($0.done, $0.total) }
        let summary: BuildSummary
        if let transforms {
            summary = try PackBuild.fromTransforms(URL(fileURLWithPath: transforms), output: URL(fileURLWithPath: out), options: options, progress: report)
        } else {
            summary = try PackBuild.fromCOLMAP(URL(fileURLWithPath: colmap!), images: URL(fileURLWithPath: images!),
                                               output: URL(fileURLWithPath: out), options: options, progress: report)
        }
        bar.finish()
        if json {
            output.json(["archive": out, "frames": summary.frames, "keyframes": summary.keyframes, "validationFrames": summary.validationFrames,
                         "observations": summary.observations, "points": summary.points, "descriptors": summary.descriptors,
                         "bytes": summary.archiveBytes, "seconds": summary.seconds])
        } else {
            output.out("wrote \(out): \(summary.points) points (\(summary.descriptors) descriptors) from \(summary.keyframes) keyframes, "
                       + "\(summary.validationFrames) validation frames, \(summary.archiveBytes) bytes in \(String(format: "%.1f", summary.seconds)) s")
        }
        return .success
    }
}
