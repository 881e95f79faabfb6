/// 2D-3D correspondences for absolute pose estimation.
///
/// `observations[i]` is the undistorted, normalized image point (OpenCV
/// camera axes: x right, y down, at depth 1) of the map point `points[i]`.
/// `fx`, `fy` convert normalized residuals to pixels, so every threshold is in
/// pixels of the query image.
public struct PoseProblem: Sendable {
    public var observations: [SIMD2<Double>]
    public var points: [Vector3]
    public var fx: Double
    public var fy: Double

    public init(observations: [SIMD2<Double>], points: [Vector3], fx: Double, fy: Double) {
        precondition(observations.count == points.count, "one observation per point")
        self.observations = observations
        self.points = points
        self.fx = fx
        self.fy = fy
    }

    /// Correspondences from pixels: undistorts each pixel with `camera` and
    /// drops those where the distortion cannot be inverted.
    ///
    /// - Returns: the problem and, for each of its correspondences, the index
    ///   of the input pixel it came from.
    public static func fromPixels(_ pixels: [SIMD2<Double>], points: [Vector3], camera: CameraIntrinsics) -> (problem: PoseProblem, sourceIndices: [Int]) {
        precondition(pixels.count == points.count, "one pixel per point")
        var observations: [SIMD2<Double>] = []
        var kept: [Vector3] = []
        var source: [Int] = []
        observations.reserveCapacity(pixels.count)
        kept.reserveCapacity(pixels.count)
        source.reserveCapacity(pixels.count)
        for i in pixels.indices {
            guard let n = camera.undistort(u: pixels[i].x, v: pixels[i].y) else { continue }
            observations.append(SIMD2(n.x, n.y))
            kept.append(points[i])
            source.append(i)
        }
        return (PoseProblem(observations: observations, points: kept, fx: camera.fx, fy: camera.fy), source)
    }

    public var count: Int { points.count }

    /// The squared reprojection error in pixels of correspondence `i` under
    /// `pose`, or nil when the point is behind the camera.
    @inlinable
    public func squaredError(_ pose: RigidTransform, _ i: Int) -> Double? {
        let p = pose.apply(points[i])
        guard p.z > 0 else { return nil }
        let dx = fx * (p.x / p.z - observations[i].x)
        let dy = fy * (p.y / p.z - observations[i].y)
        return dx * dx + dy * dy
    }
}
