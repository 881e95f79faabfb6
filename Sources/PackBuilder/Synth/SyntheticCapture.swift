public import Foundation

/// What `vpspack synth` renders.
public struct SynthOptions: Sendable {
    public var seed: UInt64 = 1
    public var frames: Int = 400
    public var queries: Int = 20
    public var width: Int = 640
    public var height: Int = 480
    public var venue: VenueKind = .building(roomsPerSide: 2)
    public var motionBlur = false
    /// Sensor noise (8-bit grey levels, standard deviation).
    public var noiseSigma = 2.0
    /// Rays per pixel along each axis (2: 2×2 anti-aliasing; 1 is faster and aliased).
    public var supersampling = 2

    public init() {}

    /// Texels across a poster: full detail for real image sizes, coarse for tiny test images.
    var textureDetail: Int { max(width, height) >= 320 ? 256 : 64 }

    /// The pinhole intrinsics of every rendered image: a 65° horizontal field of view.
    public var intrinsics: CaptureCamera {
        let f = (Double(width) / 2 / tan(65.0 / 2 * .pi / 180) * 100).rounded() / 100
        return CaptureCamera(fx: f, fy: f, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
    }
}

/// What a synth run wrote.
public struct SynthSummary: Sendable {
    public var frames: Int
    public var queries: Int
    public var outOfMap: Int
    public var pathLength: Double
    public var quads: Int
    public var transforms: URL
    /// Average wall-clock seconds to render one mapping frame.
    public var secondsPerFrame: Double
}

/// Renders a synthetic venue to a capture directory.
///
/// Layout of `DIR`:
///
///     transforms.json           intrinsics, frames (camera-to-world, OpenGL axes), depth scale
///     images/frame_00000.EXT    mapping frames
///     depth/frame_00000.EXT     16-bit depth, millimetres (z-depth; 0 = nothing hit)
///     queries/query_000.EXT     held-out query images, off the mapping path
///     queries/query_000.json    their intrinsics sidecar {fx, fy, cx, cy, width, height},
///                               pixel centres at integers as `vpspack localize` reads them
///     queries.json              ground truth of every query, and the out-of-map images
///     outside/*.EXT             images that must not localize: another venue, blank, noise
public enum SyntheticCapture {
    /// Renders everything. Deterministic: the same options give the same bytes.
    /// - Parameter progress: called after each image with (done, total).
    public static func write(_ options: SynthOptions, to directory: URL,
                             progress: (Int, Int) -> Void = { _, _ in }) throws(BuildError) -> SynthSummary {
        guard options.frames >= 2 else { throw .usage("--frames must be at least 2") }
        guard options.queries >= 0 else { throw .usage("--queries must not be negative") }
        guard options.width >= 16, options.height >= 16, options.width <= 8192, options.height <= 8192 else {
            throw .usage("--size must be between 16x16 and 8192x8192")
        }
        let venue = Venue.make(options.venue, seed: options.seed, detail: options.textureDetail)
        var renderer = Renderer(scene: venue.scene)
        renderer.supersampling = max(1, min(4, options.supersampling))
        let path = WalkingPath(route: venue.route)
        let k = options.intrinsics
        let total = options.frames + options.queries + 3
        var done = 0
        for sub in ["images", "depth", "queries", "outside"] {
            try BuildError.makeDirectory(directory.appendingPathComponent(sub))
        }

        // Mapping frames, evenly spaced along the walk.
        var frames: [TransformsFile.Frame] = []
        var random = SeededRandom(seed: options.seed, stream: 21, index: 0)
        let step = path.totalLength / Double(options.frames - 1)
        let start = Date()
        for i in 0..<options.frames {
            let s = Double(i) * step
            let pose = path.pose(at: s, rollDegrees: random.uniform(-1.5, 1.5))
            var c = RenderConditions(exposure: 1 + 0.12 * sin(Double(i) * 0.37) + random.uniform(-0.06, 0.06),
                                     lightScale: random.uniform(0.9, 1.1), noiseSigma: options.noiseSigma)
            if options.motionBlur { c = blurred(c, path: path, at: s) }
            let frame = renderer.render(pose: pose, intrinsics: k, conditions: c, noiseSeed: options.seed &+ UInt64(i) &* 7919)
            let name = String(format: "frame_%05d", i)
            let image = "images/\(name).\(ImageFiles.frameExtension)", depth = "depth/\(name).\(ImageFiles.depthExtension)"
            try ImageFiles.writeFrame(frame, to: directory.appendingPathComponent(image))
            try ImageFiles.writeDepth(frame.depthMillimetres, width: k.width, height: k.height, to: directory.appendingPathComponent(depth))
            frames.append(TransformsFile.Frame(filePath: image, transformMatrix: pose.matrixRows, depthFilePath: depth))
            done += 1
            progress(done, total)
        }
        let secondsPerFrame = Date().timeIntervalSince(start) / Double(options.frames)
        let transforms = directory.appendingPathComponent("transforms.json")
        try BuildError.write(TransformsFile(intrinsics: k, frames: frames, depthScale: 0.001).encoded(), to: transforms, what: "transforms file")

        // Queries: off the mapping path (sideways, turned, tilted) under other lighting.
        var queries: [[String: Any]] = []
        for q in 0..<options.queries {
            let s = random.uniform(0.02, 0.98) * path.totalLength
            var lateral = random.uniform(-0.2, 0.2)
            if !clear(venue.scene, path.pose(at: s, lateral: lateral).position) { lateral = 0 }
            let pose = path.pose(at: s, yawOffset: random.uniform(-15, 15), pitchOffset: random.uniform(-5, 5),
                                 lateral: lateral, rollDegrees: random.uniform(-3, 3))
            var c = RenderConditions(exposure: random.uniform(0.7, 1.3), lightScale: random.uniform(0.75, 1.25), noiseSigma: options.noiseSigma)
            if options.motionBlur { c = blurred(c, path: path, at: s) }
            let frame = renderer.render(pose: pose, intrinsics: k, conditions: c, noiseSeed: options.seed &+ 1_000_003 &+ UInt64(q))
            let name = String(format: "query_%03d", q)
            let image = "queries/\(name).\(ImageFiles.frameExtension)"
            try ImageFiles.writeFrame(frame, to: directory.appendingPathComponent(image))
            try writeSidecar(k, to: directory.appendingPathComponent("queries/\(name).json"))
            let quaternion = pose.rotation.quaternion
            queries.append([
                "image": image, "intrinsics": "queries/\(name).json",
                "transform_matrix": pose.matrixRows,
                "position": [pose.position.x, pose.position.y, pose.position.z],
                "rotation": [quaternion.x, quaternion.y, quaternion.z, quaternion.w],
                "heading": pose.headingDegrees,
                "floor": venue.floors.lastIndex { $0 <= pose.position.y - 1.0 } ?? 0,
            ])
            done += 1
            progress(done, total)
        }

        // Out-of-map images: another venue (other seed), a blank wall of grey, pure noise.
        var outside: [[String: Any]] = []
        let other = Venue.make(.building(roomsPerSide: 1), seed: options.seed ^ 0x5EED_0F_07E4, detail: options.textureDetail)
        let otherPath = WalkingPath(route: other.route)
        let otherFrame = Renderer(scene: other.scene).render(pose: otherPath.pose(at: otherPath.totalLength * 0.3), intrinsics: k,
                                                             conditions: RenderConditions(noiseSigma: options.noiseSigma), noiseSeed: options.seed &+ 77)
        let named: [(String, [UInt8])] = [
            ("other-venue", otherFrame.gray),
            ("blank", [UInt8](repeating: 128, count: k.width * k.height)),
            ("noise", (0..<(k.width * k.height)).map { _ in UInt8(truncatingIfNeeded: random.next() >> 56) }),
        ]
        for (name, pixels) in named {
            let image = "outside/\(name).\(ImageFiles.frameExtension)"
            try ImageFiles.writeGray(pixels, width: k.width, height: k.height, to: directory.appendingPathComponent(image))
            try writeSidecar(k, to: directory.appendingPathComponent("outside/\(name).json"))
            outside.append(["image": image, "intrinsics": "outside/\(name).json"])
            done += 1
            progress(done, total)
        }
        let document: [String: Any] = [
            "generator": "vpspack synth", "seed": Int(truncatingIfNeeded: options.seed),
            "venue": venueName(options.venue), "floors": venue.floors,
            "intrinsics": sidecar(k), "queries": queries, "outOfMap": outside,
            "pixelCentres": "integer (the localizer's convention; transforms.json uses +0.5)",
        ]
        try BuildError.write(jsonData(document), to: directory.appendingPathComponent("queries.json"), what: "queries file")
        return SynthSummary(frames: options.frames, queries: options.queries, outOfMap: outside.count, pathLength: path.totalLength,
                            quads: venue.scene.quads.count, transforms: transforms, secondsPerFrame: secondsPerFrame)
    }

    static func venueName(_ kind: VenueKind) -> String {
        switch kind {
        case .room: "room"
        case .building(let n): "building-\(n)"
        }
    }

    /// Blur of a walker: about 1.4 m/s over a 1/60 s exposure, plus a head turn.
    private static func blurred(_ c: RenderConditions, path: WalkingPath, at s: Double) -> RenderConditions {
        var c = c
        let d = path.feet(at: s + 0.05) - path.feet(at: s - 0.05)
        c.blurTranslation = normalize(d) * 0.025
        c.blurYawDegrees = 0.6 * cos(2 * .pi * s / path.swayPeriod)
        return c
    }

    /// True when nothing lies within 30 cm of `p` horizontally (a camera there sees no wall interior).
    private static func clear(_ scene: Scene, _ p: SIMD3<Double>) -> Bool {
        for i in 0..<16 {
            let a = Double(i) / 16 * 2 * .pi
            if scene.cast(origin: p, direction: SIMD3(cos(a), 0, sin(a)), tMax: 0.3) != nil { return false }
        }
        return true
    }

    /// Intrinsics for `vpspack localize`: pixel centres at integer coordinates,
    /// so the principal point is half a pixel less than in transforms.json.
    static func sidecar(_ k: CaptureCamera) -> [String: Any] {
        ["fx": k.fx, "fy": k.fy, "cx": k.localizerCX, "cy": k.localizerCY, "width": k.width, "height": k.height]
    }

    private static func writeSidecar(_ k: CaptureCamera, to url: URL) throws(BuildError) {
        try BuildError.write(jsonData(sidecar(k)), to: url, what: "intrinsics sidecar")
    }

    static func jsonData(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}
