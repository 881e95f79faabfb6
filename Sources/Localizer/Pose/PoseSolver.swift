import Foundation

/// Settings of the decision from correspondences to "localized" or not.
public struct PoseSolverOptions: Sendable, Hashable {
    public var estimator = PoseEstimatorOptions()
    /// The confidence a pose needs to be reported (`--min-confidence`, default 0.4).
    public var minConfidence: Double = 0.4
    /// The inliers a pose needs to be reported, whatever its confidence.
    public var minInliers: Int = 12
    /// The largest first-order standard deviation of the camera position, in
    /// metres, a reported pose may have (see ``PoseRefiner/uncertainty(_:problem:indices:sigma:)``).
    public var maxPositionUncertainty: Double = 0.5
    /// The largest first-order standard deviation of the camera rotation, in degrees.
    public var maxRotationUncertainty: Double = 5

    public init() {}

    /// Checks the ranges of the settings.
    ///
    /// - Throws: ``LocalizerError`` (`.invalidOption`) naming the setting.
    public func validate() throws(LocalizerError) {
        guard minConfidence.isFinite, minConfidence >= 0, minConfidence <= 1 else {
            throw LocalizerError(.invalidOption, "--min-confidence \(minConfidence) must lie in [0, 1]")
        }
        guard minInliers >= 6 else {
            throw LocalizerError(.invalidOption, "minimum inliers \(minInliers) must be at least 6")
        }
        guard maxPositionUncertainty > 0, maxRotationUncertainty > 0 else {
            throw LocalizerError(.invalidOption, "the largest pose uncertainty (\(maxPositionUncertainty) m, \(maxRotationUncertainty)°) must be positive")
        }
        guard estimator.threshold.isFinite, estimator.threshold > 0, estimator.threshold <= 100 else {
            throw LocalizerError(.invalidOption, "inlier threshold \(estimator.threshold) px must lie in (0, 100]")
        }
        guard estimator.confidence > 0, estimator.confidence < 1, estimator.maxIterations >= 1 else {
            throw LocalizerError(.invalidOption, "RANSAC confidence must lie in (0, 1) and the iteration cap be positive")
        }
    }
}

/// The verdict on one query's correspondences.
public struct PoseOutcome: Sendable {
    /// True only when the pose is trustworthy: enough inliers and confidence at least the threshold.
    public var localized: Bool
    /// Why the query is not localized; nil when it is.
    public var reason: String?
    /// In [0, 1]; 0 when no pose was found.
    public var confidence: Double
    /// The factors of the confidence, when a pose was found.
    public var confidenceParts: PoseConfidence?
    /// The robust estimate, reported even when rejected (for debugging and the debug image).
    public var estimate: PoseEstimate?
    /// The pose in output conventions; nil unless `localized`.
    public var pose: CameraPose?
    /// The number of 2D-3D matches the estimator ran on.
    public var matches: Int
}

/// From 2D-3D matches to a decision: robust pose, confidence, gate.
public struct PoseSolver: Sendable {
    public var options: PoseSolverOptions

    public init(options: PoseSolverOptions = PoseSolverOptions()) {
        self.options = options
    }

    /// Solves for the pose of a query image.
    ///
    /// - Parameters:
    ///   - pixels: query keypoints in pixels of the image as decoded.
    ///   - points: the map point matched to each keypoint.
    ///   - camera: the intrinsics of the image as decoded.
    ///   - width: the image width in pixels.
    ///   - height: the image height in pixels.
    public func solve(pixels: [SIMD2<Double>], points: [Vector3], camera: CameraIntrinsics, width: Int, height: Int) -> PoseOutcome {
        let (problem, source) = PoseProblem.fromPixels(pixels, points: points, camera: camera)
        let matches = problem.count
        func reject(_ reason: String, _ estimate: PoseEstimate? = nil, _ parts: PoseConfidence? = nil) -> PoseOutcome {
            PoseOutcome(localized: false, reason: reason, confidence: parts?.confidence ?? 0, confidenceParts: parts, estimate: estimate, pose: nil, matches: matches)
        }
        guard matches >= options.minInliers else {
            return reject("only \(matches) matches; at least \(options.minInliers) are needed")
        }
        guard var estimate = PoseEstimator(options: options.estimator).estimate(problem) else {
            return reject("no pose is consistent with the matches")
        }
        // How well the inliers determine the pose: with few pixels per degree
        // (small images) or distant, narrow structure, many inliers can still
        // leave metres of slack, and the refined pose may sit anywhere in it.
        let inlierIndices = estimate.inliers.indices.filter { estimate.inliers[$0] }
        let uncertainty = PoseRefiner.uncertainty(estimate.pose, problem: problem, indices: inlierIndices, sigma: max(1, estimate.meanReprojectionError))
        // Report inliers against the caller's pixel indices.
        var mask = [Bool](repeating: false, count: pixels.count)
        var inlierPixels: [SIMD2<Double>] = []
        for (k, i) in source.enumerated() where estimate.inliers[k] {
            mask[i] = true
            inlierPixels.append(pixels[i])
        }
        estimate.inliers = mask
        // A gravity prior constrains the search, so a wrong prior can still yield a
        // pose that fits part of the matches (a plane seen at another tilt). Solve
        // without it too: when the matches clearly prefer a pose that disagrees
        // with the given gravity, report nothing rather than the constrained pose.
        if let gravity = options.estimator.gravity {
            var free = options.estimator
            free.gravity = nil
            if let unconstrained = PoseEstimator(options: free).estimate(problem), !gravity.accepts(unconstrained.pose),
               Double(unconstrained.inlierCount) > 1.2 * Double(estimate.inlierCount) + 5 {
                let angle = String(format: "%.1f", gravity.disagreementDegrees(unconstrained.pose))
                return reject("the matches fit a pose \(angle)° away from the given gravity (\(unconstrained.inlierCount) inliers against \(estimate.inlierCount) with it)", estimate)
            }
        }
        // Ambiguity: when the matches the pose leaves out hold a second, distinct
        // pose of comparable support (repeated structures, two look-alike places),
        // the matches do not say which is right; report neither.
        if estimate.inlierCount >= options.minInliers, let rival = rivalPose(problem: problem, source: source, primary: estimate) {
            let distance = (rival.pose.cameraCenter - estimate.pose.cameraCenter).norm
            return reject(String(format: "ambiguous: a second pose %.2f m away fits %d matches against %d", distance, rival.inlierCount, estimate.inlierCount), estimate)
        }
        let parts = PoseConfidence(
            inlierPixels: inlierPixels, matches: matches, hypotheses: estimate.hypotheses,
            threshold: options.estimator.threshold, meanError: estimate.meanReprojectionError,
            width: width, height: height
        )
        guard estimate.inlierCount >= options.minInliers else {
            return reject("only \(estimate.inlierCount) inliers; at least \(options.minInliers) are needed", estimate, parts)
        }
        guard parts.confidence >= options.minConfidence else {
            return reject(String(format: "confidence %.2f is below the threshold %.2f", parts.confidence, options.minConfidence), estimate, parts)
        }
        let determined = uncertainty.map { $0.position <= options.maxPositionUncertainty && $0.rotationDegrees <= options.maxRotationUncertainty } ?? false
        guard determined else {
            let slack = uncertainty.map { String(format: "±%.2f m, ±%.1f°", $0.position, $0.rotationDegrees) } ?? "unbounded"
            let allowed = String(format: "±%.2f m, ±%.1f°", options.maxPositionUncertainty, options.maxRotationUncertainty)
            return reject("the inliers leave the pose poorly determined (\(slack); at most \(allowed) allowed)", estimate, parts)
        }
        return PoseOutcome(
            localized: true, reason: nil, confidence: parts.confidence, confidenceParts: parts,
            estimate: estimate, pose: CameraPose(worldToCamera: estimate.pose), matches: matches
        )
    }

    /// A second pose, distinct from `primary` (more than 0.5 m or 5° away), found
    /// among the matches `primary` leaves out, with at least `minInliers` and at
    /// least half of `primary`'s inliers; nil when there is none.
    func rivalPose(problem: PoseProblem, source: [Int], primary: PoseEstimate) -> PoseEstimate? {
        // `primary.inliers` is indexed by the caller's pixels; `source` maps problem rows to them.
        var observations: [SIMD2<Double>] = []
        var points: [Vector3] = []
        for (k, i) in source.enumerated() where !primary.inliers[i] {
            observations.append(problem.observations[k])
            points.append(problem.points[k])
        }
        let needed = max(options.minInliers, primary.inlierCount / 2)
        guard observations.count >= needed else { return nil }
        var rivalOptions = options.estimator
        rivalOptions.seed ^= 0x2_F00D
        // Only a rival with `needed` inliers matters: RANSAC stops once one would
        // have shown up with 99 % probability (the main search uses 99.99 %).
        rivalOptions.minInlierRatio = Double(needed) / Double(observations.count)
        rivalOptions.confidence = min(rivalOptions.confidence, 0.99)
        let rest = PoseProblem(observations: observations, points: points, fx: problem.fx, fy: problem.fy)
        guard let rival = PoseEstimator(options: rivalOptions).estimate(rest), rival.inlierCount >= needed else { return nil }
        let apart = (rival.pose.cameraCenter - primary.pose.cameraCenter).norm
        let turned = Quaternion(rotation: rival.pose.rotation).angle(to: Quaternion(rotation: primary.pose.rotation)) * 180 / Double.pi
        return apart > 0.5 || turned > 5 ? rival : nil
    }
}
