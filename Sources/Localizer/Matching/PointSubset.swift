/// A set of map points (for example those a hint allows), as a bitset plus the sorted list.
public struct PointSubset: Sendable, Equatable {
    /// The map's point count (the universe).
    public let pointCount: Int
    /// The member points, ascending.
    public let points: [UInt32]
    @usableFromInline let bits: [UInt64]

    /// A subset from member indices (any order, duplicates ignored); each must be `< pointCount`.
    public init(pointCount: Int, points members: some Sequence<UInt32>) {
        var bits = [UInt64](repeating: 0, count: (pointCount + 63) / 64)
        for p in members {
            precondition(Int(p) < pointCount, "PointSubset: point \(p) out of range 0..<\(pointCount)")
            bits[Int(p) >> 6] |= 1 << UInt64(p & 63)
        }
        var sorted: [UInt32] = []
        for (w, word) in bits.enumerated() {
            var x = word
            while x != 0 {
                sorted.append(UInt32(w * 64 + x.trailingZeroBitCount))
                x &= x - 1
            }
        }
        self.pointCount = pointCount
        self.bits = bits
        self.points = sorted
    }

    /// Every point.
    public static func all(pointCount: Int) -> PointSubset {
        PointSubset(pointCount: pointCount, points: (0..<UInt32(pointCount)))
    }

    public var count: Int { points.count }

    @inlinable @inline(__always)
    public func contains(_ point: Int) -> Bool {
        point >= 0 && point < pointCount && bits[point >> 6] & (1 << UInt64(point & 63)) != 0
    }
}
