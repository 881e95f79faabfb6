public import Foundation

/// What `vpspack build` makes and how.
public struct BuildOptions: Sendable {
    /// The tour name written in the manifest.
    public var tour: String
    /// The pack version (positive, grows with every publication).
    public var version: Int
    public var created = Date()
    /// Latitude, longitude (degrees), altitude (metres), heading of the pack's −Z (degrees from true north).
    public var georeference: (latitude: Double, longitude: Double, altitude: Double, heading: Double)?
    /// Host files copied into `attachments/` under their file names.
    public var attachments: [URL] = []
    /// Frames held out of the map and recorded as the pack's validation set (nil: automatic).
    public var validationFrames: Int?
    /// Features extracted per frame.
    public var maxFeatures = 2000
    /// Storey height used to number floors from camera heights.
    public var storey = 3.0
    /// COLMAP: rotate the model so that the cameras' mean up becomes +Y.
    public var estimateUp = true
    /// COLMAP: metres per model unit.
    public var scale = 1.0
    /// Decode frames reduced (by 2, 4 or 8) while their longer side stays at least this; nil for full size.
    /// Large captures build faster; map points lose some precision.
    public var maxDimension: Int?
    /// Look for frame images here (by file name) instead of beside transforms.json.
    public var imagesDirectory: URL?

    public init(tour: String, version: Int) {
        self.tour = tour
        self.version = version
    }
}

/// What a build produced.
public struct BuildSummary: Sendable {
    public var frames: Int
    public var keyframes: Int
    public var validationFrames: Int
    public var observations: Int
    public var points: Int
    public var descriptors: Int
    public var archive: URL
    public var archiveBytes: Int64
    public var seconds: Double
}

/// A stage of the build and how far it got, for progress bars.
public struct BuildProgress: Sendable {
    public var stage: String
    public var done: Int
    public var total: Int
}
