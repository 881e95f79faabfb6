import Foundation

/// The minimal absolute pose solver when gravity is known: two bearings and
/// their two world points.
///
/// Knowing the down direction `g` in the camera leaves four unknowns: the
/// rotation about the vertical (yaw θ) and the translation. Write the
/// world-to-camera rotation as `R = Q · R_y(θ)`, where `Q` is a fixed rotation
/// taking the pack's down (0, -1, 0) to `g` and `R_y` turns about the pack's Y
/// axis. In the rotated camera frame (`b' = Qᵀ b`, `t' = Qᵀ t`) each point must
/// satisfy `b' ∥ R_y(θ) X + t'`, which is linear in `(cos θ, sin θ, t')`:
/// two independent equations per point (the components orthogonal to `b'`).
/// The four equations are eliminated down to one, `α cos θ + β sin θ = γ`,
/// using the left null vector of their translation columns; its (at most two)
/// solutions θ then give `t'` by least squares. Solutions with a point behind
/// the camera are dropped.
public enum UprightP2P {
    /// World-to-camera poses (OpenCV camera axes) whose implied gravity is exactly `gravity`.
    ///
    /// - Parameters:
    ///   - bearings: unit bearings of the two points in OpenCV camera axes.
    ///   - points: the two world points.
    ///   - gravity: the unit down direction in OpenCV camera axes.
    public static func solve(bearings: (Vector3, Vector3), points: (Vector3, Vector3), gravity: Vector3) -> [RigidTransform] {
        var out: [RigidTransform] = []
        out.reserveCapacity(2)
        solve(bearings: bearings, points: points, alignment: alignment(gravity: gravity), into: &out)
        return out
    }

    /// The rotation `Q` taking the pack's down (0, -1, 0) to `gravity` (unit, OpenCV camera axes).
    public static func alignment(gravity: Vector3) -> Matrix3 {
        let down = Vector3(0, -1, 0)
        let axis = down.cross(gravity)
        let sine = axis.norm
        let cosine = down.dot(gravity)
        if sine < 1e-12 {
            // Parallel: identity; antiparallel: a half turn about x.
            return cosine > 0 ? .identity : Matrix3.diagonal(1, -1, -1)
        }
        return Matrix3.rotation(axisAngle: (atan2(sine, cosine) / sine) * axis)
    }

    /// As ``solve(bearings:points:gravity:)`` with a precomputed ``alignment(gravity:)``, into a reused buffer.
    public static func solve(bearings: (Vector3, Vector3), points: (Vector3, Vector3), alignment q: Matrix3, into solutions: inout [RigidTransform]) {
        solutions.removeAll(keepingCapacity: true)
        let qt = q.transposed
        let b = [qt * bearings.0, qt * bearings.1]
        let x = [points.0, points.1]
        // Four rows: p · (c Xc + s Xs + (0, X.y, 0) + t') = 0, with p ⟂ b'.
        var rows: [Vector3] = []
        var ac: [Double] = []
        var asn: [Double] = []
        var rhs: [Double] = []
        rows.reserveCapacity(4)
        for k in 0..<2 {
            let bk = b[k]
            // The coordinate axis least aligned with b' gives a well-conditioned orthogonal pair.
            let ax = abs(bk.x), ay = abs(bk.y), az = abs(bk.z)
            let e = ax <= ay && ax <= az ? Vector3(1, 0, 0) : (ay <= az ? Vector3(0, 1, 0) : Vector3(0, 0, 1))
            let p1 = bk.cross(e).normalized
            let p2 = bk.cross(p1).normalized
            let xc = Vector3(x[k].x, 0, x[k].z)
            let xs = Vector3(x[k].z, 0, -x[k].x)
            for p in [p1, p2] {
                rows.append(p)
                ac.append(p.dot(xc))
                asn.append(p.dot(xs))
                rhs.append(-p.y * x[k].y)
            }
        }
        // Left null vector n of the 4×3 matrix of rows: n_j = (-1)^j det(rows without j).
        var n = [Double](repeating: 0, count: 4)
        for j in 0..<4 {
            let others = (0..<4).filter { $0 != j }.map { rows[$0] }
            let d = others[0].dot(others[1].cross(others[2]))
            n[j] = j % 2 == 0 ? d : -d
        }
        var alpha = 0.0, beta = 0.0, gamma = 0.0
        for j in 0..<4 {
            alpha += n[j] * ac[j]
            beta += n[j] * asn[j]
            gamma += n[j] * rhs[j]
        }
        let rho = (alpha * alpha + beta * beta).squareRoot()
        guard rho > 1e-14 * max(1, abs(gamma)), rho.isFinite else { return }
        let ratio = gamma / rho
        guard abs(ratio) <= 1 + 1e-12 else { return }
        let phi = atan2(beta, alpha)
        let delta = acos(max(-1, min(1, ratio)))
        // Normal equations for t' given θ: (Σ p pᵀ) t' = Σ p (rhs - c ac - s as).
        var normal = Matrix3.zero
        for p in rows {
            normal = normal + Matrix3(rows: p.x * p, p.y * p, p.z * p)
        }
        guard let normalInverse = normal.inverse else { return }
        for theta in delta == 0 ? [phi] : [phi + delta, phi - delta] {
            let c = cos(theta), s = sin(theta)
            var right = Vector3.zero
            for j in 0..<4 {
                right += (rhs[j] - c * ac[j] - s * asn[j]) * rows[j]
            }
            let tPrime = normalInverse * right
            let yaw = Matrix3(rows: Vector3(c, 0, s), Vector3(0, 1, 0), Vector3(-s, 0, c))
            // Both points in front of the camera, along their bearings.
            var inFront = true
            for k in 0..<2 where (yaw * x[k] + tPrime).dot(b[k]) <= 0 { inFront = false }
            guard inFront else { continue }
            let pose = RigidTransform(rotation: q * yaw, translation: q * tPrime)
            if pose.isFinite { solutions.append(pose) }
        }
    }
}
