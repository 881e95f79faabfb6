import Foundation
import Localizer
import PackFormat
import PackStore
import PackTransport
import VPSImageIO

/// `vpspack localize IMAGE...`: camera poses from images against one pack, offline.
enum LocalizeCommand: Command {
    static let name = "localize"
    static let summary = "localize camera images against a pack, offline"
    static let help = """
        usage: vpspack localize IMAGE... (--server S --tour T | --pack ARCHIVE) [options]

        Finds the camera pose of each image (JPEG, PNG or binary PGM) in the pack's
        frame: position, rotation (camera to pack, ARKit camera axes, [x, y, z, w]),
        forward vector, heading (degrees clockwise from the pack's -Z seen from above),
        and WGS84 position and true heading when the pack is georeferenced. An image
        whose pose is not trustworthy is reported "not localized" with a reason.
        Several images are localized in parallel across cores.

        options:
          --server S --tour T      an installed pack (see `vpspack download`)
          --store DIR              the store (default $VPSPACK_STORE, $XDG_DATA_HOME/vpspack, ~/.local/share/vpspack)
          --pack ARCHIVE           a .vpspack archive, verified and read directly
          --intrinsics fx,fy,cx,cy[,k1,k2,p1,p2]
                                   pinhole intrinsics of the full-size image, OpenCV distortion;
                                   default: the sidecar NAME.json (or NAME.jpg.json) beside each image,
                                   {fx, fy, cx, cy, width, height, optional k1, k2, p1, p2}
          --hint x,y,z             believed camera position in pack metres: match only map points near it
          --radius R               metres around --hint, clamped to 1-100 (default 25)
          --floors lo,hi           match only map points on these floors (inclusive)
          --gravity x,y,z          the down direction in camera axes (x right, y up, -z forward), as ARKit reports it
          --min-confidence C       the confidence a pose needs, in [0, 1] (default 0.4)
          --json                   one JSON object per image, one per line
          --debug-image OUT.png    draw keypoints (blue), inliers (green) and outliers (red) on the query;
                                   with several images, OUT-1.png, OUT-2.png, ... in argument order

        exit status: 0 every image localized, 1 an image not localized, 3 pack not downloaded,
        64 usage, 65 bad data (image, sidecar, pack), 74 I/O
        """

    /// One image's outcome: a result, or the error that stopped it.
    enum Outcome: Sendable {
        case result(LocalizationResult)
        case failure(ExitCode, String)
    }

    /// Per-image outcomes written from concurrent workers, each slot by one worker.
    final class Slots: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Outcome?]

        init(count: Int) { items = Array(repeating: nil, count: count) }

        func set(_ i: Int, _ outcome: Outcome) {
            lock.lock()
            items[i] = outcome
            lock.unlock()
        }

        var all: [Outcome] {
            lock.lock()
            defer { lock.unlock() }
            return items.map { $0 ?? .failure(.ioError, "not processed") }
        }
    }

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let common = try CommonOptions(&arguments)
        let serverAndTour = try StoreSupport.serverAndTour(&arguments)
        let archive = try arguments.option("--pack")
        let intrinsicsText = try arguments.option("--intrinsics")
        let hint = try arguments.option("--hint")
        let radius = try arguments.option("--radius")
        let floors = try arguments.option("--floors")
        let gravityText = try arguments.option("--gravity")
        let minConfidence = try arguments.option("--min-confidence", "a number in [0, 1]") { Double($0).flatMap { (0...1).contains($0) ? $0 : nil } }
        let debugImage = try arguments.option("--debug-image")
        let images = arguments.positionals()
        try arguments.finish()

        guard !images.isEmpty else { throw UsageError("give at least one IMAGE") }
        switch (serverAndTour, archive) {
        case (nil, nil): throw UsageError("give --server S --tour T or --pack ARCHIVE")
        case (_?, _?): throw UsageError("give either --server/--tour or --pack, not both")
        default: break
        }
        var intrinsics: IntrinsicsSource?
        if let intrinsicsText {
            do {
                intrinsics = .given(try CameraIntrinsics(parsing: intrinsicsText))
            } catch {
                throw UsageError("--intrinsics: \(error.message)")
            }
        }
        let region: MapRegion?
        do {
            region = try MapRegion.parse(hint: hint, radius: radius, floors: floors)
        } catch {
            throw UsageError(error.description)
        }
        var gravity: GravityPrior?
        if let gravityText {
            do {
                gravity = try GravityPrior.parse(gravityText)
            } catch {
                throw UsageError(error.message)
            }
        }
        var options = LocalizerOptions()
        if let minConfidence { options.solver.minConfidence = minConfidence }
        options.collectDebug = debugImage != nil

        let localizer: Localizer
        if let archive {
            localizer = try Localizer(pack: ArchivePack(path: archive))
        } else if let (server, tour) = serverAndTour {
            let store = try StoreSupport.open(common)
            localizer = try Localizer(pack: store.openPack(server: server.identity, tour: tour))
        } else {
            throw UsageError("give --server S --tour T or --pack ARCHIVE")
        }

        // Parallel across images; each image's feature extraction then runs on one thread.
        let slots = Slots(count: images.count)
        let frozenOptions = options
        let frozenIntrinsics = intrinsics
        let frozenGravity = gravity
        DispatchQueue.concurrentPerform(iterations: images.count) { i in
            do {
                let result = try localizer.localize(imageAt: images[i], intrinsics: frozenIntrinsics, region: region, gravity: frozenGravity, options: frozenOptions)
                slots.set(i, .result(result))
            } catch {
                let (code, message) = describe(error)
                slots.set(i, .failure(code, message))
            }
        }

        var firstFailure: ExitCode?
        var allLocalized = true
        for (i, outcome) in slots.all.enumerated() {
            let image = images[i]
            switch outcome {
            case .failure(let code, let message):
                firstFailure = firstFailure ?? code
                output.err("vpspack localize: \(image): \(message)")
                if common.json { output.json(LocalizeOutput.json(image: image, error: message)) }
            case .result(let result):
                allLocalized = allLocalized && result.localized
                if common.json {
                    output.json(LocalizeOutput.json(image: image, result: result))
                } else {
                    for line in LocalizeOutput.text(image: image, result: result) { output.out(line) }
                }
                if let debugImage, let debug = result.debug {
                    let path = images.count == 1 ? debugImage : numbered(debugImage, i + 1)
                    let rgb = RGBImage(width: debug.width, height: debug.height, pixels: DebugOverlay.render(debug))
                    do {
                        try ImageEncoder.write(try ImageEncoder.png(rgb), to: path)
                    } catch {
                        firstFailure = firstFailure ?? .ioError
                        output.err("vpspack localize: --debug-image \(path): \(error.description)")
                    }
                }
            }
        }
        if let firstFailure { return firstFailure }
        return allLocalized ? .success : .checkFailed
    }

    /// `out.png` → `out-3.png`.
    static func numbered(_ path: String, _ n: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        return ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)"
    }
}
