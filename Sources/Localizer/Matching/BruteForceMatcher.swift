public import PackFormat

/// Exact nearest neighbours by comparing each query with every (allowed) map descriptor.
///
/// The reference for the index's recall, and the faster choice when a hint
/// leaves only a few thousand descriptors.
public struct BruteForceMatcher: DescriptorMatcher {
    public let descriptors: [BinaryDescriptor]
    /// The point of each descriptor (non-decreasing).
    public let owners: [UInt32]
    /// Point `p`'s descriptors are `descriptors[pointStarts[p] ..< pointStarts[p + 1]]`.
    public let pointStarts: [Int]

    /// A matcher over descriptors grouped by point (as in ``MapData``).
    public init(descriptors: [BinaryDescriptor], owners: [UInt32], pointCount: Int) {
        precondition(descriptors.count == owners.count)
        self.descriptors = descriptors
        self.owners = owners
        var starts = [Int](repeating: 0, count: pointCount + 1)
        for o in owners { starts[Int(o) + 1] += 1 }
        for p in 0..<pointCount { starts[p + 1] += starts[p] }
        self.pointStarts = starts
    }

    public init(map: MapData) {
        self.init(descriptors: map.descriptors, owners: map.descriptorPoints, pointCount: map.points.count)
    }

    public func match(_ queries: [BinaryDescriptor], options: MatchOptions) -> [DescriptorMatch] {
        var out: [DescriptorMatch] = []
        out.reserveCapacity(queries.count)
        descriptors.withUnsafeBufferPointer { ds in
            owners.withUnsafeBufferPointer { os in
                for (qi, q) in queries.enumerated() {
                    var best = BestTwo()
                    if let allowed = options.allowed {
                        for p in allowed.points {
                            for d in pointStarts[Int(p)]..<pointStarts[Int(p) + 1] {
                                best.offer(hammingDistance(q, ds[d]), point: Int(p))
                            }
                        }
                    } else {
                        for d in 0..<ds.count {
                            best.offer(hammingDistance(q, ds[d]), point: Int(os[d]))
                        }
                    }
                    if let m = best.result(query: qi, options: options) { out.append(m) }
                }
            }
        }
        return out
    }
}
