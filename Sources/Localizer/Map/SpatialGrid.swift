public import PackFormat

/// A uniform grid over the horizontal plane (x, z; Y is up) that finds the map
/// points inside a ``MapRegion`` without scanning the whole map.
///
/// Points are sorted by cell; a dictionary maps each non-empty cell to its
/// range. A query visits the cells overlapping the sphere's bounding square
/// and tests the points in them exactly.
public struct SpatialGrid: Sendable {
    public let cellSize: Float
    private let points: [MapPoint]
    /// Point indices sorted by cell.
    private let order: [UInt32]
    /// Cell key -> range in `order`.
    private let cells: [Int64: Range<Int>]

    public init(points: [MapPoint], cellSize: Float = 4) {
        precondition(cellSize > 0)
        self.cellSize = cellSize
        self.points = points
        var keyed = points.indices.map { (Self.key(Self.cell(points[$0].x, cellSize), Self.cell(points[$0].z, cellSize)), UInt32($0)) }
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var cells: [Int64: Range<Int>] = [:]
        var i = 0
        while i < keyed.count {
            var j = i + 1
            while j < keyed.count && keyed[j].0 == keyed[i].0 { j += 1 }
            cells[keyed[i].0] = i..<j
            i = j
        }
        self.order = keyed.map(\.1)
        self.cells = cells
    }

    static func cell(_ v: Float, _ size: Float) -> Int32 {
        let c = (v / size).rounded(.down)
        return Int32(max(min(c, Float(Int32.max / 2)), Float(Int32.min / 2)))
    }

    static func key(_ cx: Int32, _ cz: Int32) -> Int64 { Int64(cx) << 32 | Int64(UInt32(bitPattern: cz)) }

    /// The points inside `region`; nil when the region restricts nothing.
    public func points(in region: MapRegion) -> PointSubset? {
        guard !region.isUnrestricted else { return nil }
        var members: [UInt32] = []
        if let center = region.center {
            let r = region.radius
            let x0 = Self.cell(center.x - r, cellSize), x1 = Self.cell(center.x + r, cellSize)
            let z0 = Self.cell(center.z - r, cellSize), z1 = Self.cell(center.z + r, cellSize)
            for cx in x0...x1 {
                for cz in z0...z1 {
                    guard let range = cells[Self.key(cx, cz)] else { continue }
                    for k in range {
                        let p = points[Int(order[k])]
                        if region.contains(p.position, floor: Int(p.floor)) { members.append(order[k]) }
                    }
                }
            }
        } else {
            for (i, p) in points.enumerated() where region.contains(p.position, floor: Int(p.floor)) { members.append(UInt32(i)) }
        }
        return PointSubset(pointCount: points.count, points: members)
    }
}
