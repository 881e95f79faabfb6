/// The minimal absolute pose solver: three bearings and their three world points.
///
/// Lambda Twist (Persson and Nordberg, "Lambda Twist: An Accurate Fast Robust
/// Perspective Three Point (P3P) Solver", ECCV 2018), written from the paper:
///
/// 1. The unknown depths Λ = (λ1, λ2, λ3) satisfy, for each pair i < j,
///    `λi² + λj² + 2 bij λi λj = aij`, with `bij = -yi·yj` and
///    `aij = |xi - xj|²`. Writing each as `Λᵀ Mij Λ = aij`, the two
///    homogeneous conics `D1 = a23 M12 - a12 M23` and `D2 = a23 M13 - a13 M23`
///    satisfy `Λᵀ D1 Λ = Λᵀ D2 Λ = 0`.
/// 2. A real root γ of the cubic `det(D1 + γ D2) = 0` makes `D0 = D1 + γ D2`
///    a degenerate conic. When D0 is indefinite (eigenvalues σ1 > 0 > σ2, σ3 = 0)
///    it factors into two planes through the origin,
///    `(e1 ± s e2)·Λ = 0` with `s = √(-σ2/σ1)`, and every solution lies on one.
/// 3. On each plane one depth is linear in the other two; substituting into
///    `Λᵀ D2 Λ = 0` gives a quadratic in their ratio τ, and one of the original
///    equations fixes the scale. Depths must be positive.
/// 4. A few Gauss-Newton steps on the three original equations polish Λ,
///    then the rotation follows from the two triangle edges and their cross
///    product, and `t = λ1 y1 - R x1`.
///
/// Differences from the paper: every real root of the cubic is computed and
/// the best-conditioned indefinite one is used (the paper iterates to one
/// root), and the eliminated depth is the one with the largest plane
/// coefficient rather than always λ1, so no configuration divides by zero.
public enum P3P {
    /// The world-to-camera motions (OpenCV camera axes) that map each world
    /// point onto its bearing; at most four.
    ///
    /// - Parameters:
    ///   - bearings: unit vectors from the camera centre towards the three points, in camera axes.
    ///   - points: the three world points, in the same order.
    /// - Returns: every solution with all three points in front of the camera.
    public static func solve(bearings: (Vector3, Vector3, Vector3), points: (Vector3, Vector3, Vector3)) -> [RigidTransform] {
        var out: [RigidTransform] = []
        out.reserveCapacity(4)
        solve(bearings: bearings, points: points, into: &out)
        return out
    }

    /// As ``solve(bearings:points:)``, appending to `solutions` (cleared first),
    /// so RANSAC reuses one buffer.
    public static func solve(bearings: (Vector3, Vector3, Vector3), points: (Vector3, Vector3, Vector3), into solutions: inout [RigidTransform]) {
        solutions.removeAll(keepingCapacity: true)
        let (y1, y2, y3) = bearings
        let (x1, x2, x3) = points
        let d12 = x1 - x2
        let d13 = x1 - x3
        let d23 = x2 - x3
        let a12 = d12.squaredNorm
        let a13 = d13.squaredNorm
        let a23 = d23.squaredNorm
        let normal = d12.cross(d13)
        // Collinear or coincident world points: infinitely many poses.
        guard normal.squaredNorm > 1e-20 * a12 * a13, a12 > 0, a13 > 0, a23 > 0 else { return }
        guard let worldFrameInverse = Matrix3(columns: d12, d13, normal).inverse else { return }

        let b12 = -y1.dot(y2)
        let b13 = -y1.dot(y3)
        let b23 = -y2.dot(y3)

        let m12 = Matrix3(rows: Vector3(1, b12, 0), Vector3(b12, 1, 0), Vector3(0, 0, 0))
        let m13 = Matrix3(rows: Vector3(1, 0, b13), Vector3(0, 0, 0), Vector3(b13, 0, 1))
        let m23 = Matrix3(rows: Vector3(0, 0, 0), Vector3(0, 1, b23), Vector3(0, b23, 1))
        let d1 = a23 * m12 - a12 * m23
        let d2 = a23 * m13 - a13 * m23

        // det(D1 + γ D2) = det D1 + γ tr(adj(D1) D2) + γ² tr(adj(D2) D1) + γ³ det D2.
        let c0 = d1.determinant
        let c1 = (d1.adjugate * d2).trace
        let c2 = (d2.adjugate * d1).trace
        let c3 = d2.determinant
        var roots = (0.0, 0.0, 0.0)
        let rootCount = Polynomial.realCubicRoots(c3, c2, c1, c0, into: &roots)
        guard rootCount > 0 else { return }

        // The best-conditioned indefinite degenerate conic among the roots.
        var best: (d0: Matrix3, gamma: Double, quality: Double)?
        for k in 0..<rootCount {
            let gamma = k == 0 ? roots.0 : (k == 1 ? roots.1 : roots.2)
            let d0 = d1 + gamma * d2
            let trace = d0.trace
            let product = d0.adjugate.trace  // σ1 σ2 when σ3 = 0
            let quality = -product / (trace * trace - 2 * product)  // in (0, 1/2] when indefinite
            if quality > 1e-12, quality.isFinite, quality > (best?.quality ?? 0) {
                best = (d0, gamma, quality)
            }
        }
        guard let (d0, gamma, _) = best else { return }

        // Eigen-structure of the singular D0: e3 spans its null space.
        let trace = d0.trace
        let product = d0.adjugate.trace
        let disc = (trace * trace - 4 * product).squareRoot()
        // σ1 is the eigenvalue of larger magnitude (better-conditioned eigenvector).
        let sigmaA = trace >= 0 ? (trace + disc) / 2 : (trace - disc) / 2
        let sigmaB = product / sigmaA
        guard let e1 = nullVector(d0 - Matrix3.diagonal(sigmaA, sigmaA, sigmaA)),
              let e3 = nullVector(d0) else { return }
        let e2 = e3.cross(e1).normalized
        let s = (-sigmaB / sigmaA).squareRoot()
        guard s.isFinite else { return }

        // The homogeneous conic used on each plane; D1 and D2 agree there up to
        // the factor -γ, so take the one that is not scaled down.
        let conic = abs(gamma) > 1 ? d1 : d2

        for sign in [1.0, -1.0] {
            let n = e1 + (sign * s) * e2
            // Eliminate the depth with the largest coefficient: λi = wj λj + wk λk.
            let ax = abs(n.x), ay = abs(n.y), az = abs(n.z)
            let i = ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2)
            let ni = i == 0 ? n.x : (i == 1 ? n.y : n.z)
            // a: the direction with λj = 1, λk = 0; b: λj = 0, λk = 1.
            let a: Vector3
            let b: Vector3
            switch i {
            case 0: a = Vector3(-n.y / ni, 1, 0); b = Vector3(-n.z / ni, 0, 1)
            case 1: a = Vector3(1, -n.x / ni, 0); b = Vector3(0, -n.z / ni, 1)
            default: a = Vector3(1, 0, -n.x / ni); b = Vector3(0, 1, -n.y / ni)
            }
            let qa = a.dot(conic * a)
            let qb = 2 * a.dot(conic * b)
            let qc = b.dot(conic * b)
            var taus = (0.0, 0.0)
            let tauCount = Polynomial.realQuadraticRoots(qa, qb, qc, into: &taus)
            for k in 0..<tauCount {
                let tau = k == 0 ? taus.0 : taus.1
                var v = tau * a + b
                if v.x < 0 && v.y < 0 && v.z < 0 { v = -v }
                guard v.x > 0, v.y > 0, v.z > 0 else { continue }
                // Scale from the pair whose quadratic form is largest.
                let q12 = v.x * v.x + v.y * v.y + 2 * b12 * v.x * v.y
                let q13 = v.x * v.x + v.z * v.z + 2 * b13 * v.x * v.z
                let q23 = v.y * v.y + v.z * v.z + 2 * b23 * v.y * v.z
                let scale: Double
                if q12 >= q13 && q12 >= q23 { scale = (a12 / q12).squareRoot() } else if q13 >= q23 { scale = (a13 / q13).squareRoot() } else { scale = (a23 / q23).squareRoot() }
                guard scale.isFinite, scale > 0 else { continue }
                var lambda = scale * v
                refineDepths(&lambda, b12: b12, b13: b13, b23: b23, a12: a12, a13: a13, a23: a23)
                guard lambda.x > 0, lambda.y > 0, lambda.z > 0 else { continue }

                let p1 = lambda.x * y1
                let z12 = p1 - lambda.y * y2
                let z13 = p1 - lambda.z * y3
                let cameraFrame = Matrix3(columns: z12, z13, z12.cross(z13))
                let rotation = (cameraFrame * worldFrameInverse).orthonormalized
                let pose = RigidTransform(rotation: rotation, translation: p1 - rotation * x1)
                guard pose.isFinite else { continue }
                solutions.append(pose)
            }
        }
    }

    /// A unit vector spanning the null space of a rank-2 matrix: the largest
    /// cross product of two of its rows.
    static func nullVector(_ m: Matrix3) -> Vector3? {
        let c01 = m.r0.cross(m.r1)
        let c02 = m.r0.cross(m.r2)
        let c12 = m.r1.cross(m.r2)
        let n01 = c01.squaredNorm, n02 = c02.squaredNorm, n12 = c12.squaredNorm
        let best = n01 >= n02 && n01 >= n12 ? c01 : (n02 >= n12 ? c02 : c12)
        let n = max(n01, n02, n12)
        guard n > 0, n.isFinite else { return nil }
        return best / n.squareRoot()
    }

    /// Gauss-Newton on `λi² + λj² + 2 bij λi λj = aij`, keeping a step only if it lowers the residual.
    static func refineDepths(_ lambda: inout Vector3, b12: Double, b13: Double, b23: Double, a12: Double, a13: Double, a23: Double) {
        func residual(_ l: Vector3) -> Vector3 {
            Vector3(
                l.x * l.x + l.y * l.y + 2 * b12 * l.x * l.y - a12,
                l.x * l.x + l.z * l.z + 2 * b13 * l.x * l.z - a13,
                l.y * l.y + l.z * l.z + 2 * b23 * l.y * l.z - a23
            )
        }
        var r = residual(lambda)
        var cost = r.squaredNorm
        for _ in 0..<5 {
            if cost < 1e-30 * (a12 * a12 + a13 * a13 + a23 * a23) { return }
            let l = lambda
            let j = Matrix3(
                rows: Vector3(2 * (l.x + b12 * l.y), 2 * (l.y + b12 * l.x), 0),
                Vector3(2 * (l.x + b13 * l.z), 0, 2 * (l.z + b13 * l.x)),
                Vector3(0, 2 * (l.y + b23 * l.z), 2 * (l.z + b23 * l.y))
            )
            guard let jInverse = j.inverse else { return }
            let candidate = l - jInverse * r
            let rc = residual(candidate)
            let cc = rc.squaredNorm
            guard cc < cost else { return }
            lambda = candidate
            r = rc
            cost = cc
        }
    }
}
