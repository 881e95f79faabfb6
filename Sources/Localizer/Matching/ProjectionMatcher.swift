public import PackFormat

/// Guided matching: once a pose is known roughly, each query keypoint is
/// compared only with the map points that the pose projects near it.
///
/// The global index must tell a descriptor apart from every descriptor in the
/// whole venue, so its ratio test drops correct matches whenever a look-alike
/// exists anywhere (repeated wallpaper, a poster hung twice). Here the
/// competitors are only the points projecting within ``radius`` pixels, so far
/// more correct matches pass, at a tiny cost: one projection per map point and
/// a few descriptor comparisons per keypoint. The localizer uses it after a
/// first pose from the index (docs/matching.md, "Guided matching").
///
/// ```swift
/// let guided = ProjectionMatcher(radius: 8).match(keypoints: kps, descriptors: ds,
///     worldToCamera: pose, camera: camera, width: 640, height: 480,
///     index: map.matcher.exact, points: map.data.points)
/// // guided.matches; guided.projected can seed a later round from a nearby pose.
/// ```
public struct ProjectionMatcher: Sendable {
    /// Search radius around each projected point, in pixels of the query.
    public var radius: Double
    /// Matches farther than this Hamming distance are dropped.
    public var maxDistance: Int
    /// Lowe's ratio between the best and the second-best point in the window.
    public var ratio: Double

    public init(radius: Double = 8, maxDistance: Int = 64, ratio: Double = 0.8) {
        precondition(radius > 0 && (0...256).contains(maxDistance) && ratio > 0)
        self.radius = radius
        self.maxDistance = maxDistance
        self.ratio = ratio
    }

    /// Matches keypoints to the map points `worldToCamera` projects within
    /// ``radius`` of them.
    ///
    /// - Parameters:
    ///   - keypoints: the query keypoints, in pixels of the image as decoded.
    ///   - descriptors: their descriptors, one per keypoint.
    ///   - worldToCamera: the pose (OpenCV camera axes: x right, y down, z forward).
    ///   - camera: intrinsics of the image as decoded (with its distortion).
    ///   - index: the map's descriptors grouped by point.
    ///   - points: the map points.
    ///   - allowed: when set, only these points are candidates (hints).
    ///   - candidates: when set, only these points are projected, for example
    ///     the `projected` points of an earlier round from a nearby pose. They
    ///     must already be within `allowed`.
    /// - Returns: at most one match per keypoint and per map point (the closer
    ///   keypoint wins), in keypoint order, and the points that projected into
    ///   the image or within ``radius`` of it.
    public func match(keypoints: [Keypoint], descriptors: [BinaryDescriptor], worldToCamera pose: RigidTransform,
                      camera: CameraIntrinsics, width: Int, height: Int,
                      index: BruteForceMatcher, points: [MapPoint], allowed: PointSubset? = nil,
                      candidates: [UInt32]? = nil) -> GuidedMatches {
        precondition(keypoints.count == descriptors.count, "one descriptor per keypoint")
        guard width > 0, height > 0, !keypoints.isEmpty else { return GuidedMatches(matches: [], projected: []) }
        let grid = ProjectedGrid(cell: radius, width: width, height: height)
        let projected = grid.project(points: points, pose: pose, camera: camera, among: candidates ?? allowed?.points)
        var claimed = [Int32](repeating: -1, count: points.count)  // keypoint holding each point
        var found: [DescriptorMatch?] = Array(repeating: nil, count: keypoints.count)
        let r2 = radius * radius
        let options = MatchOptions(maxDistance: maxDistance, ratio: ratio)
        for (qi, k) in keypoints.enumerated() {
            let u = Double(k.x), v = Double(k.y)
            let q = descriptors[qi]
            var best = BestTwo()
            projected.forEachCandidate(near: u, v) { p, pu, pv in
                let du = pu - u, dv = pv - v
                guard du * du + dv * dv <= r2 else { return }
                var nearest = 257
                for d in index.pointStarts[p]..<index.pointStarts[p + 1] {
                    nearest = min(nearest, hammingDistance(q, index.descriptors[d]))
                }
                best.offer(nearest, point: p)
            }
            guard let m = best.result(query: qi, options: options) else { continue }
            let holder = Int(claimed[m.point])
            if holder >= 0, let other = found[holder] {
                if other.distance <= m.distance { continue }
                found[holder] = nil
            }
            claimed[m.point] = Int32(qi)
            found[qi] = m
        }
        return GuidedMatches(matches: found.compactMap { $0 }, projected: projected.ids.map { UInt32($0) })
    }
}

/// What ``ProjectionMatcher/match(keypoints:descriptors:worldToCamera:camera:width:height:index:points:allowed:candidates:)`` found.
public struct GuidedMatches: Sendable {
    /// At most one per keypoint and per map point, in keypoint order.
    public var matches: [DescriptorMatch]
    /// The points that projected into the image or within the radius of it,
    /// ascending when the candidates were.
    public var projected: [UInt32]
}

/// Map points projected into the query image and bucketed by square cells.
struct ProjectedGrid {
    let cell: Double
    let columns: Int
    let rows: Int
    let width: Int
    let height: Int

    init(cell: Double, width: Int, height: Int) {
        self.cell = cell
        self.width = width
        self.height = height
        columns = Int((Double(width) / cell).rounded(.up)) + 2
        rows = Int((Double(height) / cell).rounded(.up)) + 2
    }

    /// The cell of a pixel, shifted by one so that a margin of one cell around
    /// the image has cells too.
    @inline(__always)
    func cellIndex(_ u: Double, _ v: Double) -> Int? {
        // Far outside the image (or not a number): no cell, and no trap converting to Int.
        guard u > -cell, v > -cell, u < Double(width) + cell, v < Double(height) + cell else { return nil }
        let c = Int((u / cell).rounded(.down)) + 1, r = Int((v / cell).rounded(.down)) + 1
        guard c >= 0, c < columns, r >= 0, r < rows else { return nil }
        return r * columns + c
    }

    /// Projects every point of `among` (all points when nil) in front of the
    /// camera and keeps those landing within one cell of the image.
    func project(points: [MapPoint], pose: RigidTransform, camera: CameraIntrinsics, among: [UInt32]?) -> Projection {
        // Points whose undistorted bearing falls far outside the image's are skipped
        // before distorting: the distortion polynomial folds back out there.
        let bounds = camera.normalizedBounds(width: width, height: height, margin: cell)
        let r = pose.rotation, t = pose.translation
        var cellOf: [Int32] = []
        var pixels: [SIMD2<Double>] = []
        var ids: [Int32] = []
        cellOf.reserveCapacity(4096)
        pixels.reserveCapacity(4096)
        ids.reserveCapacity(4096)
        func visit(_ i: Int) {
            let p = points[i]
            let x = Double(p.x), y = Double(p.y), z = Double(p.z)
            let cz = r.r2.x * x + r.r2.y * y + r.r2.z * z + t.z
            guard cz > 0.05 else { return }
            let nx = (r.r0.x * x + r.r0.y * y + r.r0.z * z + t.x) / cz
            let ny = (r.r1.x * x + r.r1.y * y + r.r1.z * z + t.y) / cz
            guard nx >= bounds.minX, nx <= bounds.maxX, ny >= bounds.minY, ny <= bounds.maxY else { return }
            let (u, v) = camera.project(x: nx, y: ny)
            guard let c = cellIndex(u, v) else { return }
            cellOf.append(Int32(c))
            pixels.append(SIMD2(u, v))
            ids.append(Int32(i))
        }
        if let among {
            for i in among { visit(Int(i)) }
        } else {
            for i in points.indices { visit(i) }
        }
        // Counting sort by cell.
        var starts = [Int32](repeating: 0, count: columns * rows + 1)
        for c in cellOf { starts[Int(c) + 1] += 1 }
        for c in 0..<(columns * rows) { starts[c + 1] += starts[c] }
        var fill = starts
        var order = [Int32](repeating: 0, count: ids.count)
        for (k, c) in cellOf.enumerated() {
            order[Int(fill[Int(c)])] = Int32(k)
            fill[Int(c)] += 1
        }
        return Projection(grid: self, starts: starts, order: order, pixels: pixels, ids: ids)
    }
}

/// The result of ``ProjectedGrid/project(points:pose:camera:among:)``.
struct Projection {
    let grid: ProjectedGrid
    let starts: [Int32]
    let order: [Int32]
    let pixels: [SIMD2<Double>]
    let ids: [Int32]

    /// Calls `body(point, u, v)` for every projected point in the 3×3 cells
    /// around pixel (u, v): every point within one cell size of it, and some more.
    @inline(__always)
    func forEachCandidate(near u: Double, _ v: Double, _ body: (Int, Double, Double) -> Void) {
        let c = Int((u / grid.cell).rounded(.down)) + 1, r = Int((v / grid.cell).rounded(.down)) + 1
        for row in max(r - 1, 0)...min(r + 1, grid.rows - 1) {
            for col in max(c - 1, 0)...min(c + 1, grid.columns - 1) {
                let cellIndex = row * grid.columns + col
                for k in Int(starts[cellIndex])..<Int(starts[cellIndex + 1]) {
                    let j = Int(order[k])
                    body(Int(ids[j]), pixels[j].x, pixels[j].y)
                }
            }
        }
    }
}

extension CameraIntrinsics {
    /// The range of undistorted normalized coordinates that the image (grown by
    /// `margin` pixels on every side) covers, widened by 10 %: bearings outside
    /// it cannot project into the image.
    func normalizedBounds(width: Int, height: Int, margin: Double) -> (minX: Double, maxX: Double, minY: Double, maxY: Double) {
        let w = Double(width), h = Double(height)
        let us = [-margin, w / 2, w + margin], vs = [-margin, h / 2, h + margin]
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for u in us {
            for v in vs {
                let n = undistort(u: u, v: v) ?? ((u - cx) / fx, (v - cy) / fy)
                minX = min(minX, n.x)
                maxX = max(maxX, n.x)
                minY = min(minY, n.y)
                maxY = max(maxY, n.y)
            }
        }
        let padX = 0.1 * (maxX - minX), padY = 0.1 * (maxY - minY)
        return (minX - padX, maxX + padX, minY - padY, maxY + padY)
    }
}
