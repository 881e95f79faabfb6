import Foundation
public import PackFormat
public import VPSImageIO

/// Settings of a localization, beyond the map and the image.
public struct LocalizerOptions: Sendable {
    /// Pose estimation and the decision (`minConfidence`, inlier threshold, RANSAC).
    public var solver = PoseSolverOptions()
    /// Feature extraction on the query.
    public var features = FeatureExtractor.Configuration()
    /// JPEGs larger than this (longer side) are decoded reduced by a power of
    /// two, keeping the longer side at least this long; nil decodes full size.
    public var workingSize: Int? = 960
    /// Lowe's ratio test between the nearest and second-nearest map point.
    public var ratio: Double = 0.8
    /// Matches farther than this Hamming distance are dropped.
    public var maxDistance: Int = 64
    /// The first, global matching pass over the map's index. Cheap: most
    /// images localize from it (docs/matching.md has the figures).
    public var firstPass = IndexEffort(tables: 4, probeRadius: 0)
    /// When the first pass yields no pose, a second global pass with this
    /// effort; nil stops after the first.
    public var fallbackPass: IndexEffort? = IndexEffort(tables: HashIndexMatcher.defaultTablesUsed, probeRadius: HashIndexMatcher.defaultProbeRadius)
    /// Guided matching rounds after a pose (0 skips guided matching). Each
    /// round matches every keypoint against the map points the current pose
    /// projects near it, and solves again.
    public var guidedRounds = 2
    /// The first guided round's search radius, in pixels.
    public var guidedRadius: Double = 8
    /// Later rounds search within this many times the previous pose's mean
    /// reprojection error (at least 2 px, at most ``guidedRadius``).
    public var guidedTightening: Double = 2
    /// A pose from the index must be confirmed: the first guided round, which
    /// tests the pose's prediction of where map points appear on every
    /// keypoint, must itself localize, or the image is not localized.
    public var guidedConfirmation = true
    /// Keep the decoded image, keypoints and matches in the result (for `--debug-image`).
    public var collectDebug = false

    public init() {}
}

/// Localizes camera images against one pack's map, on the device, with no network.
///
/// Load once per pack, then localize any number of images, from any number of
/// threads (the localizer is an immutable value).
///
/// ```swift
/// let localizer = try Localizer(pack: ArchivePack(path: "venue.vpspack"))
/// let result = try localizer.localize(imageAt: "query.jpg", intrinsics: .given(camera))
/// if result.localized, let pose = result.pose { print(pose.position, pose.heading) }
/// ```
///
/// The stages, each timed in ``LocalizationResult/timings``: decode (to gray,
/// reduced for large JPEGs), features (ORB-class), match (Hamming index, ratio
/// test, hint region), pose (P3P or upright two-point in LO-RANSAC, refinement,
/// confidence gate). See docs/localizer.md.
public struct Localizer: Sendable {
    public let map: LocalizationMap
    /// The pack's place on Earth; results then carry WGS84 positions.
    public let georeference: Georeference?

    public init(map: LocalizationMap, georeference: Georeference? = nil) {
        self.map = map
        self.georeference = georeference
    }

    /// Loads the map (every `map/` file) and the georeference of a pack.
    ///
    /// - Throws: the pack's error when a file cannot be read, ``MapFormatError``
    ///   when the map is malformed, ``LocalizerError`` (`.invalidMap`) when the
    ///   pack has no map or an implausible georeference.
    public init(pack: some PackContents) throws {
        var files: [String: Data] = [:]
        for file in pack.manifest.files where file.path.hasPrefix("map/") {
            files[file.path] = try pack.data(at: file.path)
        }
        guard !files.isEmpty else {
            throw LocalizerError(.invalidMap, "pack \(pack.manifest.tour) version \(pack.manifest.version) has no map/ files")
        }
        let map = try LocalizationMap(files: files)
        var georeference: Georeference?
        if let g = pack.manifest.georeference {
            georeference = try Georeference(latitude: g.latitude, longitude: g.longitude, altitude: g.altitude, heading: g.heading)
        }
        self.init(map: map, georeference: georeference)
    }

    /// Localizes an image file.
    ///
    /// - Parameters:
    ///   - path: a JPEG, PNG or binary PGM file.
    ///   - intrinsics: the camera's intrinsics for the full-size image; nil
    ///     looks for a sidecar `NAME.json` (or `NAME.jpg.json`) beside the image.
    ///   - region: the hint region (position and radius, floors); nil searches the whole map.
    ///   - gravity: the measured down direction, if any.
    ///   - options: the remaining settings.
    /// - Returns: the result; an image that cannot be localized is a result
    ///   with `localized == false`, not an error.
    /// - Throws: ``ImageError`` when the image cannot be decoded,
    ///   ``LocalizerError`` when the intrinsics are missing, malformed or do not fit the image.
    public func localize(imageAt path: String, intrinsics: IntrinsicsSource?, region: MapRegion? = nil, gravity: GravityPrior? = nil,
                         options: LocalizerOptions = LocalizerOptions()) throws -> LocalizationResult {
        let start = DispatchTime.now().uptimeNanoseconds
        guard let source = try intrinsics ?? IntrinsicsSource.sidecar(forImage: path) else {
            throw LocalizerError(.invalidIntrinsics, "\(path): no intrinsics; give --intrinsics fx,fy,cx,cy or a sidecar \(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent).json")
        }
        let decoded = try ImageDecoder.decode(path: path, maxDimension: options.workingSize)
        let camera = try source.resolve(originalWidth: decoded.originalWidth, originalHeight: decoded.originalHeight, reduction: decoded.reduction)
        let decodeEnd = DispatchTime.now().uptimeNanoseconds
        var result = localize(image: decoded.image, camera: camera, region: region, gravity: gravity, options: options)
        result.timings.decode = Double(decodeEnd - start) / 1e6
        result.timings.total += result.timings.decode
        return result
    }

    /// Localizes a decoded gray image whose intrinsics are known.
    ///
    /// - Parameters:
    ///   - image: the query, 8-bit gray.
    ///   - camera: intrinsics of `image` as given (already scaled to its size).
    public func localize(image: GrayImage, camera: CameraIntrinsics, region: MapRegion? = nil, gravity: GravityPrior? = nil,
                         options: LocalizerOptions = LocalizerOptions()) -> LocalizationResult {
        func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
        func ms(_ a: UInt64, _ b: UInt64) -> Double { Double(b - a) / 1e6 }
        var timings = StageTimings()
        let t0 = now()
        let features = FeatureExtractor(options.features).extract(image)
        let t1 = now()
        timings.features = ms(t0, t1)

        let allowed = map.allowedPoints(in: region)
        var solverOptions = options.solver
        if let gravity { solverOptions.estimator.gravity = gravity }
        let solver = PoseSolver(options: solverOptions)
        let matchOptions = MatchOptions(maxDistance: options.maxDistance, ratio: options.ratio, allowed: allowed)
        var matchTime: UInt64 = 0, poseTime: UInt64 = 0
        // One attempt: matches, then the pose they give.
        func attempt(_ match: () -> [DescriptorMatch]) -> Attempt {
            let a = now()
            let matches = match()
            let pixels = matches.map { SIMD2(Double(features.keypoints[$0.query].x), Double(features.keypoints[$0.query].y)) }
            let points = matches.map { m in
                let p = map.data.points[m.point]
                return Vector3(Double(p.x), Double(p.y), Double(p.z))
            }
            let b = now()
            let outcome = solver.solve(pixels: pixels, points: points, camera: camera, width: image.width, height: image.height)
            let c = now()
            matchTime += b - a
            poseTime += c - b
            return Attempt(pixels: pixels, outcome: outcome)
        }
        func global(_ effort: IndexEffort) -> Attempt {
            attempt {
                guard allowed?.count ?? 1 > 0 else { return [] }
                var matcher = map.matcher
                matcher.tablesUsed = min(effort.tables, matcher.index.tableCount)
                matcher.probeRadius = effort.probeRadius
                return matcher.match(features.descriptors, options: matchOptions)
            }
        }
        // A global pass, then guided rounds from its pose.
        func pass(_ effort: IndexEffort) -> Attempt {
            var best = global(effort)
            // Each round starts from the best pose so far and is kept only when it
            // localizes with at least as many inliers.
            var seen: [UInt32]?  // the points the previous round projected into view
            for round in 0..<options.guidedRounds {
                guard best.outcome.localized, let previous = best.outcome.estimate else { break }
                let radius = round == 0 ? options.guidedRadius
                    : min(options.guidedRadius, max(2, options.guidedTightening * previous.meanReprojectionError))
                let guided = attempt {
                    let found = ProjectionMatcher(radius: radius, maxDistance: options.maxDistance, ratio: options.ratio).match(
                        keypoints: features.keypoints, descriptors: features.descriptors, worldToCamera: previous.pose,
                        camera: camera, width: image.width, height: image.height,
                        index: map.matcher.exact, points: map.data.points, allowed: allowed, candidates: seen)
                    seen = found.projected
                    return found.matches
                }
                    if guided.outcome.localized, guided.outcome.estimate?.inlierCount ?? 0 >= previous.inlierCount {
                    best = guided
                } else if round == 0, options.guidedConfirmation, !guided.outcome.localized {
                    // Matches picked from the whole venue can agree on a wrong pose by
                    // chance (tiny images, weak geometry); matched around that pose,
                    // the keypoints then fail to support it.
                    best.outcome.localized = false
                    best.outcome.pose = nil
                    best.outcome.reason = "matching around the pose did not confirm it (\(guided.outcome.reason ?? "no pose"))"
                    break
                }
            }
            return best
        }
        var best = pass(options.firstPass)
        if !best.outcome.localized, let fallback = options.fallbackPass, fallback != options.firstPass {
            best = pass(fallback)
        }
        var outcome = best.outcome
        let pixels = best.pixels
        if allowed?.count == 0 {
            outcome.reason = "the hint region holds no map points"
        }
        timings.match = Double(matchTime) / 1e6
        timings.pose = Double(poseTime) / 1e6
        let t3 = now()
        timings.total = ms(t0, t3)

        var debug: LocalizationResult.DebugData?
        if options.collectDebug {
            debug = LocalizationResult.DebugData(
                width: image.width, height: image.height, image: image.pixels,
                keypoints: features.keypoints.map { SIMD2(Double($0.x), Double($0.y)) },
                matched: pixels,
                inlier: outcome.estimate?.inliers ?? [Bool](repeating: false, count: pixels.count)
            )
        }
        let geo = outcome.pose.flatMap { pose in georeference?.geoPose(position: pose.position, heading: pose.heading) }
        return LocalizationResult(
            localized: outcome.localized, reason: outcome.reason, confidence: outcome.confidence,
            pose: outcome.pose, geo: geo,
            inliers: outcome.estimate?.inlierCount ?? 0, matches: outcome.matches,
            reprojectionError: outcome.estimate?.meanReprojectionError,
            keypoints: features.count, timings: timings, camera: camera, debug: debug
        )
    }
}

/// How hard a global matching pass searches the map's index: how many hash
/// tables it probes and at which radius (``HashIndexMatcher``).
public struct IndexEffort: Sendable, Hashable {
    public var tables: Int
    public var probeRadius: Int

    public init(tables: Int, probeRadius: Int) {
        precondition(tables >= 1 && (0...1).contains(probeRadius))
        self.tables = tables
        self.probeRadius = probeRadius
    }
}

/// Matches and the pose they gave, inside ``Localizer/localize(image:camera:region:gravity:options:)``.
private struct Attempt {
    var pixels: [SIMD2<Double>]
    var outcome: PoseOutcome
}
