/// Milliseconds spent in each stage of one localization.
public struct StageTimings: Sendable, Hashable {
    public var decode: Double = 0
    public var features: Double = 0
    public var match: Double = 0
    public var pose: Double = 0
    public var total: Double = 0

    public init() {}
}

/// The outcome of localizing one image.
///
/// Not being localized is a normal outcome, not an error: `localized` is
/// false, `reason` says why and `pose` is nil — a pose is only ever reported
/// when it passed the confidence gate.
public struct LocalizationResult: Sendable {
    public var localized: Bool
    /// Why the image is not localized; nil when it is.
    public var reason: String?
    /// In [0, 1].
    public var confidence: Double
    /// Camera-to-pack pose (ARKit camera axes); nil unless `localized`.
    public var pose: CameraPose?
    /// WGS84 position and true heading; nil unless `localized` and the pack is georeferenced.
    public var geo: GeoPose?
    /// Inliers of the best pose (also when rejected).
    public var inliers: Int
    /// 2D-3D matches that went into the pose solver.
    public var matches: Int
    /// Mean inlier reprojection error in pixels; nil when no pose was found.
    public var reprojectionError: Double?
    /// Keypoints detected in the query.
    public var keypoints: Int
    public var timings: StageTimings
    /// The intrinsics used, for the image as decoded.
    public var camera: CameraIntrinsics?
    /// Query keypoints (pixels of the decoded image) with their match state,
    /// for `--debug-image`: every keypoint, and which were matched and inliers.
    public var debug: DebugData?

    public init(localized: Bool, reason: String?, confidence: Double, pose: CameraPose?, geo: GeoPose?, inliers: Int, matches: Int, reprojectionError: Double?, keypoints: Int, timings: StageTimings, camera: CameraIntrinsics?, debug: DebugData? = nil) {
        self.localized = localized
        self.reason = reason
        self.confidence = confidence
        self.pose = pose
        self.geo = geo
        self.inliers = inliers
        self.matches = matches
        self.reprojectionError = reprojectionError
        self.keypoints = keypoints
        self.timings = timings
        self.camera = camera
        self.debug = debug
    }

    /// Keypoints of the query and what became of them.
    public struct DebugData: Sendable {
        /// Size of the decoded image.
        public var width: Int
        public var height: Int
        /// Its 8-bit gray pixels, rows top to bottom.
        public var image: [UInt8]
        public var keypoints: [SIMD2<Double>]
        /// Pixels of the matched keypoints.
        public var matched: [SIMD2<Double>]
        /// Parallel to `matched`: true for inliers of the best pose.
        public var inlier: [Bool]

        public init(width: Int, height: Int, image: [UInt8], keypoints: [SIMD2<Double>], matched: [SIMD2<Double>], inlier: [Bool]) {
            self.width = width
            self.height = height
            self.image = image
            self.keypoints = keypoints
            self.matched = matched
            self.inlier = inlier
        }
    }
}
