/// A detected feature: position in full-image pixels, pyramid level, orientation and strength.
public struct Keypoint: Sendable, Equatable {
    /// Column, in pixels of the level-0 (input) image; pixel centres are at integers.
    public var x: Float
    /// Row, in pixels of the level-0 (input) image.
    public var y: Float
    /// The pyramid level it was found on (0 = input resolution).
    public var octave: Int
    /// Orientation in degrees, [0, 360), measured from +x towards +y (image rows grow downwards).
    public var angle: Float
    /// The Harris corner response; larger is stronger.
    public var response: Float
    /// The diameter of the described patch, in level-0 pixels.
    public var size: Float

    public init(x: Float, y: Float, octave: Int, angle: Float, response: Float, size: Float) {
        self.x = x
        self.y = y
        self.octave = octave
        self.angle = angle
        self.response = response
        self.size = size
    }
}

/// A 256-bit binary descriptor: bit `i` is bit `i % 64` of lane `i / 64`.
public typealias BinaryDescriptor = SIMD4<UInt64>

/// The number of differing bits between two 256-bit descriptors.
///
/// `nonzeroBitCount` per 64-bit lane: one `popcnt` instruction each when the build
/// targets a CPU that has it (`-Xswiftc -target-cpu -Xswiftc nehalem` or later),
/// otherwise LLVM's inline bit-twiddling count; docs/matching.md gives both figures
/// (and those of a vectorised bit-slicing count, which was slower than the latter).
@inlinable @inline(__always)
public func hammingDistance(_ a: BinaryDescriptor, _ b: BinaryDescriptor) -> Int {
    let x = a ^ b
    return x[0].nonzeroBitCount &+ x[1].nonzeroBitCount &+ x[2].nonzeroBitCount &+ x[3].nonzeroBitCount
}

/// Keypoints and their descriptors, index for index.
public struct FeatureSet: Sendable, Equatable {
    public var keypoints: [Keypoint]
    public var descriptors: [BinaryDescriptor]

    public init(keypoints: [Keypoint], descriptors: [BinaryDescriptor]) {
        precondition(keypoints.count == descriptors.count, "FeatureSet: \(keypoints.count) keypoints, \(descriptors.count) descriptors")
        self.keypoints = keypoints
        self.descriptors = descriptors
    }

    public var count: Int { keypoints.count }
}
