public import VPSImageIO
import Foundation

/// ORB-class features: a scale pyramid, FAST-9 corners with non-maximum
/// suppression, Harris ranking spread over a grid, intensity-centroid
/// orientation and 256-bit steered BRIEF descriptors on a smoothed image.
///
/// The output is deterministic: the same image and configuration always give
/// the same keypoints and descriptors in the same order (level by level, then
/// by decreasing response).
///
/// ```swift
/// let extractor = FeatureExtractor(.init(maxFeatures: 1000))
/// let features = extractor.extract(image)
/// print(features.count, features.keypoints[0].x)
/// ```
public struct FeatureExtractor: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// The total number of features wanted, spread over the levels geometrically.
        public var maxFeatures: Int
        /// The size ratio between consecutive pyramid levels (> 1).
        public var scaleFactor: Float
        /// The number of pyramid levels (>= 1).
        public var levels: Int
        /// The FAST intensity threshold.
        public var fastThreshold: Int
        /// A lower threshold retried on levels where `fastThreshold` finds fewer corners than wanted (0: never).
        public var minFastThreshold: Int
        /// The side, in level pixels, of the grid cells that spread features over the image.
        public var gridCellSize: Int
        /// Processes pyramid levels on several threads.
        public var parallel: Bool

        public init(maxFeatures: Int = 1000, scaleFactor: Float = 1.2, levels: Int = 8, fastThreshold: Int = 20,
                    minFastThreshold: Int = 7, gridCellSize: Int = 32, parallel: Bool = false) {
            self.maxFeatures = maxFeatures
            self.scaleFactor = scaleFactor
            self.levels = levels
            self.fastThreshold = fastThreshold
            self.minFastThreshold = minFastThreshold
            self.gridCellSize = gridCellSize
            self.parallel = parallel
        }
    }

    public let configuration: Configuration

    /// Pixels left out at each level's border: the orientation disc (radius 15) must fit.
    static let border = 16
    /// The patch diameter, reported as the keypoint size at level 0.
    static let patchSize: Float = 31

    public init(_ configuration: Configuration = Configuration()) {
        precondition(configuration.maxFeatures >= 0 && configuration.levels >= 1 && configuration.scaleFactor > 1
                     && configuration.gridCellSize >= 4, "FeatureExtractor: invalid configuration \(configuration)")
        self.configuration = configuration
    }

    /// How many features each level should give: geometric in the scale, summing to `maxFeatures`.
    public static func budgets(maxFeatures: Int, levels: Int, scaleFactor: Float) -> [Int] {
        let f = 1.0 / Double(scaleFactor)
        let first = Double(maxFeatures) * (1 - f) / (1 - pow(f, Double(levels)))
        var out: [Int] = []
        var assigned = 0
        for level in 0..<(levels - 1) {
            let n = Int((first * pow(f, Double(level))).rounded())
            out.append(n)
            assigned += n
        }
        out.append(max(maxFeatures - assigned, 0))
        return out
    }

    /// Detects and describes features in `image`.
    public func extract(_ image: GrayImage) -> FeatureSet {
        let c = configuration
        let pyramid = Self.pyramid(image, configuration: c)
        let budgets = Self.budgets(maxFeatures: c.maxFeatures, levels: c.levels, scaleFactor: c.scaleFactor)
        var perLevel = [FeatureSet](repeating: FeatureSet(keypoints: [], descriptors: []), count: pyramid.count)
        if c.parallel && pyramid.count > 1 {
            let results = LevelResults(count: pyramid.count)
            let levels = pyramid
            DispatchQueue.concurrentPerform(iterations: levels.count) { level in
                results.set(level, Self.processLevel(levels[level], level: level, base: image, budget: budgets[level], configuration: c))
            }
            perLevel = results.values()
        } else {
            for level in pyramid.indices {
                perLevel[level] = Self.processLevel(pyramid[level], level: level, base: image, budget: budgets[level], configuration: c)
            }
        }
        var keypoints: [Keypoint] = []
        var descriptors: [BinaryDescriptor] = []
        keypoints.reserveCapacity(c.maxFeatures)
        descriptors.reserveCapacity(c.maxFeatures)
        for set in perLevel {
            keypoints += set.keypoints
            descriptors += set.descriptors
        }
        return FeatureSet(keypoints: keypoints, descriptors: descriptors)
    }

    /// The scale pyramid: each level resized from the one above it, down to the
    /// smallest level that still has room for features inside its border.
    static func pyramid(_ image: GrayImage, configuration c: Configuration) -> [GrayImage] {
        var pyramid: [GrayImage] = [image]
        var scale = c.scaleFactor
        for _ in 1..<c.levels {
            let w = Int((Float(image.width) / scale).rounded()), h = Int((Float(image.height) / scale).rounded())
            guard w > 2 * border + 4, h > 2 * border + 4 else { break }
            pyramid.append(Resize.bilinear(pyramid[pyramid.count - 1], width: w, height: h))
            scale *= c.scaleFactor
        }
        return pyramid
    }

    /// Detection, selection and description on one level.
    static func processLevel(_ level: GrayImage, level index: Int, base: GrayImage, budget: Int, configuration c: Configuration) -> FeatureSet {
        guard budget > 0 else { return FeatureSet(keypoints: [], descriptors: []) }
        var corners = FAST.detect(level, threshold: c.fastThreshold, border: border)
        if corners.count < budget, c.minFastThreshold > 0, c.minFastThreshold < c.fastThreshold {
            corners = FAST.detect(level, threshold: c.minFastThreshold, border: border)
        }
        guard !corners.isEmpty else { return FeatureSet(keypoints: [], descriptors: []) }
        let w = level.width, h = level.height
        let cell = c.gridCellSize
        let columns = (w + cell - 1) / cell, rows = (h + cell - 1) / cell
        func cellOf(_ corner: Corner) -> Int { Int(corner.y) / cell * columns + Int(corner.x) / cell }

        // Keep up to twice the budget by FAST score, spread over the grid, for Harris.
        let order = byScore(corners)
        let pre = spread(order, cellOf: { cellOf(corners[$0]) }, cells: columns * rows, count: 2 * budget)
        var responses = [Float](repeating: 0, count: pre.count)
        level.pixels.withUnsafeBufferPointer { src in
            for (i, k) in pre.enumerated() {
                responses[i] = Harris.response(src.baseAddress!, stride: w, x: Int(corners[k].x), y: Int(corners[k].y))
            }
        }
        // Decreasing response, then rank: `pre` is already in score order.
        var responseKeys = pre.indices.map { UInt64(~Self.orderedBits(responses[$0])) << 32 | UInt64($0) }
        responseKeys.sort()
        let byResponse = responseKeys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
        let chosen = spread(byResponse, cellOf: { cellOf(corners[pre[$0]]) }, cells: columns * rows, count: budget)

        // Orientation on the level image, BRIEF on its smoothed copy, blurred only around each keypoint.
        let sx = Float(base.width) / Float(w), sy = Float(base.height) / Float(h)
        let size = patchSize * (sx + sy) / 2
        var keypoints: [Keypoint] = []
        var descriptors: [BinaryDescriptor] = []
        keypoints.reserveCapacity(chosen.count)
        descriptors.reserveCapacity(chosen.count)
        var offsets = [Int32](repeating: 0, count: 512)
        var window = [UInt8](repeating: 0, count: Smooth.windowBytes)
        level.pixels.withUnsafeBufferPointer { src in
            window.withUnsafeMutableBufferPointer { sm in
                Orientation.halfWidths.withUnsafeBufferPointer { hw in
                    BRIEF.integerPattern.withUnsafeBufferPointer { pattern in
                        offsets.withUnsafeMutableBufferPointer { off in
                            for j in chosen {
                                let corner = corners[pre[j]]
                                let x = Int(corner.x), y = Int(corner.y)
                                let (degrees, d) = describePixel(src.baseAddress!, width: w, height: h, x: x, y: y, halfWidths: hw,
                                                                 window: sm.baseAddress!, pattern: pattern, offsets: off)
                                keypoints.append(Keypoint(x: (Float(x) + 0.5) * sx - 0.5, y: (Float(y) + 0.5) * sy - 0.5,
                                                          octave: index, angle: degrees, response: responses[j], size: size))
                                descriptors.append(d)
                            }
                        }
                    }
                }
            }
        }
        return FeatureSet(keypoints: keypoints, descriptors: descriptors)
    }

    /// The orientation (degrees in [0, 360)) and steered BRIEF descriptor of
    /// pixel (x, y) of a pyramid level: the intensity-centroid angle on the
    /// level, then BRIEF on the level blurred in the window around the pixel.
    /// The pixel must lie `border` pixels inside the level.
    @inline(__always)
    static func describePixel(_ src: UnsafePointer<UInt8>, width w: Int, height h: Int, x: Int, y: Int,
                              halfWidths hw: UnsafeBufferPointer<Int>, window: UnsafeMutablePointer<UInt8>,
                              pattern: UnsafeBufferPointer<Int32>, offsets: UnsafeMutableBufferPointer<Int32>) -> (degrees: Float, descriptor: BinaryDescriptor) {
        let angle = Orientation.angle(src, stride: w, x: x, y: y, halfWidths: hw)
        Smooth.window(src, width: w, height: h, x: x, y: y, into: window)
        let d = BRIEF.describe(window, stride: Smooth.windowStride, x: Smooth.windowRadius, y: Smooth.windowRadius, angle: angle,
                               pattern: pattern, offsets: offsets)
        var degrees = angle * (180 / Float.pi)
        if degrees < 0 { degrees += 360 }
        if degrees >= 360 { degrees -= 360 }
        return (degrees, d)
    }

    /// The indices of `corners` by decreasing score, equal scores by increasing index.
    ///
    /// A counting sort: scores are small integers (at most 16 × 255 + 1), and a level
    /// can have tens of thousands of corners, which a comparison sort takes long over.
    static func byScore(_ corners: [Corner]) -> [Int] {
        var top = 0
        for c in corners { top = max(top, Int(c.score)) }
        precondition(top < 1 << 16 && corners.allSatisfy { $0.score >= 0 }, "FeatureExtractor: FAST score out of range")
        // Bucket `top - score`, so that the best come first.
        var starts = [Int](repeating: 0, count: top + 2)
        var order = [Int](repeating: 0, count: corners.count)
        starts.withUnsafeMutableBufferPointer { starts in
            corners.withUnsafeBufferPointer { corners in
                for c in corners { starts[top - Int(c.score) + 1] += 1 }
                for i in 1..<starts.count { starts[i] += starts[i - 1] }
                order.withUnsafeMutableBufferPointer { order in
                    for (i, c) in corners.enumerated() {
                        let bucket = top - Int(c.score)
                        order[starts[bucket]] = i
                        starts[bucket] += 1
                    }
                }
            }
        }
        return order
    }

    /// The bits of a float as an unsigned integer with the same order.
    @inline(__always)
    static func orderedBits(_ f: Float) -> UInt32 {
        let b = f.bitPattern
        return b & 0x8000_0000 != 0 ? ~b : b | 0x8000_0000
    }

    /// Picks `count` items from `order` (best first): first up to an equal share per
    /// grid cell, then the best of the rest. Returns them in `order`'s order.
    static func spread(_ order: [Int], cellOf: (Int) -> Int, cells: Int, count: Int) -> [Int] {
        if order.count <= count { return order }
        var occupied = [Bool](repeating: false, count: cells)
        var nonEmpty = 0
        for i in order where !occupied[cellOf(i)] { occupied[cellOf(i)] = true; nonEmpty += 1 }
        let quota = max(1, count / max(nonEmpty, 1))
        var perCell = [Int](repeating: 0, count: cells)
        var taken = [Bool](repeating: false, count: order.count)
        var picked = 0
        for (rank, i) in order.enumerated() where picked < count {
            let cell = cellOf(i)
            if perCell[cell] < quota { perCell[cell] += 1; taken[rank] = true; picked += 1 }
        }
        for rank in order.indices where picked < count && !taken[rank] {
            taken[rank] = true
            picked += 1
        }
        return order.indices.filter { taken[$0] }.map { order[$0] }
    }
}

/// Per-level results written from concurrent workers, each slot by one worker only.
private final class LevelResults: @unchecked Sendable {
    private var slots: [FeatureSet]
    private let lock = NSLock()

    init(count: Int) { slots = [FeatureSet](repeating: FeatureSet(keypoints: [], descriptors: []), count: count) }

    func set(_ index: Int, _ value: FeatureSet) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func values() -> [FeatureSet] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }
}
