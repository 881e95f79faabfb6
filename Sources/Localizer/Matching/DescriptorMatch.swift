/// The nearest map points of one query descriptor in Hamming space.
public struct DescriptorMatch: Sendable, Equatable {
    /// Index of the query descriptor.
    public var query: Int
    /// The nearest map point.
    public var point: Int
    /// Hamming distance (0...256) from the query to the point's nearest descriptor.
    public var distance: Int
    /// The second-nearest point (a different point), nil when there was none.
    public var secondPoint: Int?
    /// Its distance; 257 when there is no second point.
    public var secondDistance: Int

    public init(query: Int, point: Int, distance: Int, secondPoint: Int?, secondDistance: Int) {
        self.query = query
        self.point = point
        self.distance = distance
        self.secondPoint = secondPoint
        self.secondDistance = secondDistance
    }

    /// Lowe's ratio test: the best is clearly better than the second best.
    public func passesRatio(_ ratio: Double) -> Bool {
        Double(distance) < ratio * Double(secondDistance)
    }
}

/// Options for matching query descriptors against a map.
public struct MatchOptions: Sendable, Equatable {
    /// Matches farther than this are dropped (0...256).
    public var maxDistance: Int
    /// When set, matches failing the ratio test with this ratio are dropped.
    public var ratio: Double?
    /// When set, only these points are considered (hints).
    public var allowed: PointSubset?

    public init(maxDistance: Int = 256, ratio: Double? = nil, allowed: PointSubset? = nil) {
        self.maxDistance = maxDistance
        self.ratio = ratio
        self.allowed = allowed
    }
}

/// Finds, for query descriptors, the nearest and second-nearest map points.
public protocol DescriptorMatcher: Sendable {
    /// One match per query that has a candidate passing the options, in query order.
    func match(_ queries: [BinaryDescriptor], options: MatchOptions) -> [DescriptorMatch]
}

/// Running best and second-best over candidates, the second always a different point.
@usableFromInline
struct BestTwo {
    @usableFromInline var best = 257, bestPoint = -1
    @usableFromInline var second = 257, secondPoint = -1

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func offer(_ distance: Int, point: Int) {
        if distance < best {
            if point != bestPoint {
                second = best
                secondPoint = bestPoint
            }
            best = distance
            bestPoint = point
        } else if distance < second && point != bestPoint {
            second = distance
            secondPoint = point
        }
    }

    @inlinable
    func result(query: Int, options: MatchOptions) -> DescriptorMatch? {
        guard bestPoint >= 0, best <= options.maxDistance else { return nil }
        let m = DescriptorMatch(query: query, point: bestPoint, distance: best, secondPoint: secondPoint >= 0 ? secondPoint : nil, secondDistance: second)
        if let ratio = options.ratio, !m.passesRatio(ratio) { return nil }
        return m
    }
}
