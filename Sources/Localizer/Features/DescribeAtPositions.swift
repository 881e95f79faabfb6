public import VPSImageIO

/// Descriptors at positions the caller chooses, instead of at detected corners.
///
/// The same pyramid, smoothing, intensity-centroid orientation and steered
/// BRIEF pattern as ``FeatureExtractor/extract(_:)``, so a descriptor computed
/// here at a corner the extractor finds is the extractor's descriptor for it.
/// Map builders use this to describe points whose image positions come from
/// another detector (a COLMAP model's SIFT observations).
///
/// ```swift
/// let extractor = FeatureExtractor()
/// let out = extractor.describe(image, at: [.init(x: 412.5, y: 230, level: 2)])
/// if case .described(let keypoint, let descriptor) = out[0] { print(keypoint.angle, descriptor) }
/// ```
extension FeatureExtractor {
    /// A position to describe: a pixel of the level-0 (input) image, pixel
    /// centres at integers as in ``Keypoint``, and the pyramid level to describe it at.
    public struct PositionRequest: Sendable, Equatable {
        public var x: Float
        public var y: Float
        /// The pyramid level (0 = input resolution; level `l` is `scaleFactor^l` times smaller).
        public var level: Int
        /// When positive, the position moves to the nearest FAST corner (the
        /// extractor's detector and threshold, after non-maximum suppression)
        /// within this many level pixels: the pixel the extractor would report
        /// for that corner. 0 describes the position itself.
        public var snapRadius: Float

        public init(x: Float, y: Float, level: Int, snapRadius: Float = 0) {
            self.x = x
            self.y = y
            self.level = level
            self.snapRadius = snapRadius
        }
    }

    /// What describing one requested position gave.
    public enum PositionDescription: Sendable, Equatable {
        /// The keypoint at the nearest pixel of the level (its position snapped to
        /// that pixel's centre, in level-0 pixels), with orientation, Harris
        /// response and size as the extractor reports them, and its descriptor.
        case described(Keypoint, BinaryDescriptor)
        /// The position lies outside the image or within the extractor's border
        /// (16 level pixels) of its edge, where the orientation disc does not fit.
        case tooCloseToBorder
        /// The image is too small to have this pyramid level (or the level is
        /// negative or beyond the configuration's `levels`).
        case noSuchLevel
        /// The request asked to snap to a corner and the detector found none
        /// within `snapRadius` (the position itself is inside the border).
        case noCornerNearby
    }

    /// The number of pyramid levels ``extract(_:)`` builds for an image of this size.
    public func levelCount(width: Int, height: Int) -> Int {
        let c = configuration
        var count = 1
        var scale = c.scaleFactor
        while count < c.levels {
            let w = Int((Float(width) / scale).rounded()), h = Int((Float(height) / scale).rounded())
            guard w > 2 * Self.border + 4, h > 2 * Self.border + 4 else { break }
            count += 1
            scale *= c.scaleFactor
        }
        return count
    }

    /// Describes `image` at each requested position and level; the result is
    /// index for index with `requests`. The pyramid is built once, down to the
    /// deepest level asked for, and blurred only around each described pixel.
    public func describe(_ image: GrayImage, at requests: [PositionRequest]) -> [PositionDescription] {
        guard !requests.isEmpty else { return [] }
        let c = configuration
        let wanted = requests.map(\.level).filter { $0 >= 0 && $0 < c.levels }
        guard let deepest = wanted.max() else { return requests.map { _ in .noSuchLevel } }
        var limited = c
        limited.levels = deepest + 1
        let pyramid = Self.pyramid(image, configuration: limited)
        var out = [PositionDescription](repeating: .noSuchLevel, count: requests.count)
        // Requests grouped by level, so that each level is visited once (and FAST runs once on it when snapping).
        var byLevel = [[Int]](repeating: [], count: pyramid.count)
        for (i, r) in requests.enumerated() where r.level >= 0 && r.level < pyramid.count { byLevel[r.level].append(i) }
        var offsets = [Int32](repeating: 0, count: 512)
        var window = [UInt8](repeating: 0, count: Smooth.windowBytes)
        for (index, members) in byLevel.enumerated() where !members.isEmpty {
            let level = pyramid[index]
            let w = level.width, h = level.height
            let sx = Float(image.width) / Float(w), sy = Float(image.height) / Float(h)
            let size = Self.patchSize * (sx + sy) / 2
            let b = Self.border
            let corners = members.contains { requests[$0].snapRadius > 0 }
                ? CornerLookup(FAST.detect(level, threshold: c.fastThreshold, border: b)) : CornerLookup([])
            level.pixels.withUnsafeBufferPointer { src in
                window.withUnsafeMutableBufferPointer { sm in
                    Orientation.halfWidths.withUnsafeBufferPointer { hw in
                        BRIEF.integerPattern.withUnsafeBufferPointer { pattern in
                            offsets.withUnsafeMutableBufferPointer { off in
                                for i in members {
                                    // The inverse of the extractor's level-to-input mapping, to the nearest level pixel.
                                    let fx = (requests[i].x + 0.5) / sx - 0.5, fy = (requests[i].y + 0.5) / sy - 0.5
                                    guard fx.isFinite, fy.isFinite, fx > -1e6, fx < 1e6, fy > -1e6, fy < 1e6 else {
                                        out[i] = .tooCloseToBorder
                                        continue
                                    }
                                    var x = Int(fx.rounded()), y = Int(fy.rounded())
                                    let inside = x >= b && y >= b && x < w - b && y < h - b
                                    if requests[i].snapRadius > 0 {
                                        guard let corner = corners.nearest(x: fx, y: fy, within: requests[i].snapRadius) else {
                                            out[i] = inside ? .noCornerNearby : .tooCloseToBorder
                                            continue
                                        }
                                        x = Int(corner.x)
                                        y = Int(corner.y)
                                    } else if !inside {
                                        out[i] = .tooCloseToBorder
                                        continue
                                    }
                                    // Exactly as the extractor describes its keypoints (the border keeps the blur's taps inside).
                                    let (degrees, d) = FeatureExtractor.describePixel(src.baseAddress!, width: w, height: h, x: x, y: y, halfWidths: hw,
                                                                                      window: sm.baseAddress!, pattern: pattern, offsets: off)
                                    let response = Harris.response(src.baseAddress!, stride: w, x: x, y: y)
                                    let k = Keypoint(x: (Float(x) + 0.5) * sx - 0.5, y: (Float(y) + 0.5) * sy - 0.5,
                                                     octave: index, angle: degrees, response: response, size: size)
                                    out[i] = .described(k, d)
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Describes every position at every one of `levels`: `result[p][l]` is
    /// position `p` at `levels[l]`.
    public func describe(_ image: GrayImage, at positions: [SIMD2<Float>], levels: [Int]) -> [[PositionDescription]] {
        let requests = positions.flatMap { p in levels.map { PositionRequest(x: p.x, y: p.y, level: $0) } }
        let flat = describe(image, at: requests)
        return positions.indices.map { p in Array(flat[(p * levels.count)..<((p + 1) * levels.count)]) }
    }
}

/// FAST corners of one level on a grid of 8-pixel cells, for nearest-corner queries.
private struct CornerLookup {
    private var cells: [Int: [Corner]] = [:]
    private static let cell: Float = 8

    init(_ corners: [Corner]) {
        for c in corners { cells[Self.key(Int(c.x) >> 3, Int(c.y) >> 3), default: []].append(c) }
    }

    private static func key(_ cx: Int, _ cy: Int) -> Int { cx &* 1_000_003 &+ cy }

    /// The corner nearest (x, y) within `radius` level pixels; ties go to the higher FAST score.
    func nearest(x: Float, y: Float, within radius: Float) -> Corner? {
        var best: Corner?
        var bestD = radius * radius
        let x0 = Int(((x - radius) / Self.cell).rounded(.down)), x1 = Int(((x + radius) / Self.cell).rounded(.down))
        let y0 = Int(((y - radius) / Self.cell).rounded(.down)), y1 = Int(((y + radius) / Self.cell).rounded(.down))
        guard x1 - x0 < 64, y1 - y0 < 64 else { return nil }
        for cx in x0...x1 {
            for cy in y0...y1 {
                for c in cells[Self.key(cx, cy)] ?? [] {
                    let dx = Float(c.x) - x, dy = Float(c.y) - y
                    let d = dx * dx + dy * dy
                    if d < bestD || (d == bestD && best.map { c.score > $0.score } ?? true) {
                        bestD = d
                        best = c
                    }
                }
            }
        }
        return best
    }
}
