import Foundation

/// A robust loss on the pixel residual norm `r`.
public enum RobustLoss: Sendable, Hashable {
    /// `r²/2`.
    case squared
    /// `r²/2` up to `δ`, then linear: `δ (r - δ/2)`.
    case huber(Double)
    /// `c²/2 · log(1 + r²/c²)`.
    case cauchy(Double)

    /// ρ(r²).
    func cost(_ r2: Double) -> Double {
        switch self {
        case .squared: return r2 / 2
        case .huber(let d):
            return r2 <= d * d ? r2 / 2 : d * (r2.squareRoot() - d / 2)
        case .cauchy(let c):
            return c * c / 2 * log1p(r2 / (c * c))
        }
    }

    /// The iteratively-reweighted-least-squares weight ρ'(r)/r.
    func weight(_ r2: Double) -> Double {
        switch self {
        case .squared: return 1
        case .huber(let d): return r2 <= d * d ? 1 : d / r2.squareRoot()
        case .cauchy(let c): return 1 / (1 + r2 / (c * c))
        }
    }
}

/// Non-linear refinement of a pose by Levenberg-Marquardt on the robust
/// reprojection error.
///
/// The pose is updated on SE(3) by a left perturbation of the camera-frame
/// points, `p ↦ exp([ω]×) p + δ`, i.e. `R ← exp([ω]×) R`, `t ← exp([ω]×) t + δ`,
/// so the rotation stays a rotation. Each step solves the 6×6 damped normal
/// equations `(H + μ diag H) Δ = -g` of the reweighted problem and is kept
/// only when the robust cost decreases.
public enum PoseRefiner {
    /// The refined pose over the correspondences `indices` of `problem`.
    ///
    /// - Parameters:
    ///   - pose: the starting world-to-camera pose.
    ///   - problem: the correspondences; residuals are in pixels.
    ///   - indices: which correspondences to use (typically the inliers).
    ///   - loss: the robust loss on pixel residuals.
    ///   - maxIterations: the cap on Levenberg-Marquardt iterations.
    public static func refine(_ pose: RigidTransform, problem: PoseProblem, indices: [Int], loss: RobustLoss, maxIterations: Int = 20) -> RigidTransform {
        guard indices.count >= 3 else { return pose }
        var current = pose
        var currentCost = cost(current, problem: problem, indices: indices, loss: loss)
        var lambda = 1e-3
        for _ in 0..<maxIterations {
            var h = [Double](repeating: 0, count: 36)
            var g = [Double](repeating: 0, count: 6)
            accumulate(current, problem: problem, indices: indices, loss: loss, h: &h, g: &g)
            var improved = false
            for _ in 0..<6 {
                var damped = h
                for k in 0..<6 { damped[k * 7] += lambda * max(h[k * 7], 1e-9) }
                guard let step = solveSymmetric6(damped, g.map { -$0 }) else {
                    lambda *= 10
                    continue
                }
                let omega = Vector3(step[0], step[1], step[2])
                let delta = Vector3(step[3], step[4], step[5])
                let rotationStep = Matrix3.rotation(axisAngle: omega)
                let candidate = RigidTransform(
                    rotation: rotationStep * current.rotation,
                    translation: rotationStep * current.translation + delta
                )
                let candidateCost = cost(candidate, problem: problem, indices: indices, loss: loss)
                if candidateCost < currentCost {
                    let relative = (currentCost - candidateCost) / max(currentCost, 1e-300)
                    current = candidate
                    currentCost = candidateCost
                    lambda = max(lambda / 10, 1e-9)
                    improved = true
                    if relative < 1e-10 || step.map(abs).max()! < 1e-10 { return current.reorthonormalized }
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        return current.reorthonormalized
    }

    /// The robust cost; a point behind the camera costs as much as a 1000-pixel residual.
    static func cost(_ pose: RigidTransform, problem: PoseProblem, indices: [Int], loss: RobustLoss) -> Double {
        var total = 0.0
        for i in indices {
            total += loss.cost(problem.squaredError(pose, i) ?? 1e6)
        }
        return total
    }

    /// The reweighted normal equations `H = Σ w JᵀJ`, `g = Σ w Jᵀ r` (row-major 6×6 and 6).
    static func accumulate(_ pose: RigidTransform, problem: PoseProblem, indices: [Int], loss: RobustLoss, h: inout [Double], g: inout [Double]) {
        let fx = problem.fx, fy = problem.fy
        // Rows of H and g as SIMD8 lanes 0...5, so each point costs a few vector multiply-adds.
        var rows = [SIMD8<Double>](repeating: .zero, count: 6)
        var gradient = SIMD8<Double>.zero
        problem.points.withUnsafeBufferPointer { points in
            problem.observations.withUnsafeBufferPointer { observations in
                for i in indices {
                    let p = pose.apply(points[i])
                    guard p.z > 1e-9 else { continue }
                    let iz = 1 / p.z
                    let x = p.x * iz, y = p.y * iz
                    let rx = fx * (x - observations[i].x)
                    let ry = fy * (y - observations[i].y)
                    let w = loss.weight(rx * rx + ry * ry)
                    // Jacobians of the two residuals in (ω, δ).
                    let jx = SIMD8<Double>(-fx * x * y, fx * (1 + x * x), -fx * y, fx * iz, 0, -fx * x * iz, 0, 0)
                    let jy = SIMD8<Double>(-fy * (1 + y * y), fy * x * y, fy * x, 0, fy * iz, -fy * y * iz, 0, 0)
                    let wjx = w * jx
                    let wjy = w * jy
                    gradient += wjx * rx + wjy * ry
                    for r in 0..<6 {
                        rows[r] += wjx[r] * jx + wjy[r] * jy
                    }
                }
            }
        }
        for r in 0..<6 {
            g[r] += gradient[r]
            for c in 0..<6 { h[r * 6 + c] += rows[r][c] }
        }
    }

    /// First-order standard deviations of a pose fitted to `indices` with pixel
    /// noise `sigma`: the covariance is `σ² H⁻¹` for the Gauss-Newton matrix
    /// `H = JᵀJ` at `pose`. Under the left perturbation the camera centre
    /// `C = -Rᵀt` moves by `-Rᵀδ`, so its variance is the trace of the δ block;
    /// the rotation's is the trace of the ω block. Nil when `H` is singular
    /// (the matches do not determine the pose at all).
    public static func uncertainty(_ pose: RigidTransform, problem: PoseProblem, indices: [Int], sigma: Double) -> (position: Double, rotationDegrees: Double)? {
        var h = [Double](repeating: 0, count: 36)
        var g = [Double](repeating: 0, count: 6)
        accumulate(pose, problem: problem, indices: indices, loss: .squared, h: &h, g: &g)
        var variance = [Double](repeating: 0, count: 6)
        for k in 0..<6 {
            var unit = [Double](repeating: 0, count: 6)
            unit[k] = 1
            guard let column = solveSymmetric6(h, unit), column[k].isFinite, column[k] > 0 else { return nil }
            variance[k] = column[k]
        }
        let position = sigma * (variance[3] + variance[4] + variance[5]).squareRoot()
        let rotation = sigma * (variance[0] + variance[1] + variance[2]).squareRoot() * 180 / Double.pi
        return (position, rotation)
    }

    /// Solves the symmetric positive definite 6×6 system `a x = b` by Cholesky; nil when not positive definite.
    static func solveSymmetric6(_ a: [Double], _ b: [Double]) -> [Double]? {
        var l = [Double](repeating: 0, count: 36)
        for i in 0..<6 {
            for j in 0...i {
                var sum = a[i * 6 + j]
                for k in 0..<j { sum -= l[i * 6 + k] * l[j * 6 + k] }
                if i == j {
                    guard sum > 0, sum.isFinite else { return nil }
                    l[i * 6 + i] = sum.squareRoot()
                } else {
                    l[i * 6 + j] = sum / l[j * 6 + j]
                }
            }
        }
        var y = [Double](repeating: 0, count: 6)
        for i in 0..<6 {
            var sum = b[i]
            for k in 0..<i { sum -= l[i * 6 + k] * y[k] }
            y[i] = sum / l[i * 6 + i]
        }
        var x = [Double](repeating: 0, count: 6)
        for i in stride(from: 5, through: 0, by: -1) {
            var sum = y[i]
            for k in (i + 1)..<6 { sum -= l[k * 6 + i] * x[k] }
            x[i] = sum / l[i * 6 + i]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

extension RigidTransform {
    /// The same motion with its rotation projected back onto SO(3).
    var reorthonormalized: RigidTransform {
        RigidTransform(rotation: rotation.orthonormalized, translation: translation)
    }
}
