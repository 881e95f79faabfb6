import Foundation

/// Triangulation of a point from rays of cameras with known poses.
enum Triangulation {
    /// The point closest to all rays in the least-squares sense (midpoint method):
    /// solves Σ(I − d dᵀ) X = Σ(I − d dᵀ) o for unit directions d and origins o.
    /// Returns nil when the rays are (nearly) parallel.
    static func point(origins: [SIMD3<Double>], directions: [SIMD3<Double>]) -> SIMD3<Double>? {
        var a = Mat3(columns: .zero, .zero, .zero)
        var b = SIMD3<Double>.zero
        for (o, d0) in zip(origins, directions) {
            let d = normalize(d0)
            let m = Mat3(columns: SIMD3(1, 0, 0) - d * d.x, SIMD3(0, 1, 0) - d * d.y, SIMD3(0, 0, 1) - d * d.z)
            a = Mat3(columns: a.c0 + m.c0, a.c1 + m.c1, a.c2 + m.c2)
            b += m * o
        }
        let det = a.determinant
        guard abs(det) > 1e-12 else { return nil }
        // Cramer's rule.
        let x = Mat3(columns: b, a.c1, a.c2).determinant / det
        let y = Mat3(columns: a.c0, b, a.c2).determinant / det
        let z = Mat3(columns: a.c0, a.c1, b).determinant / det
        return SIMD3(x, y, z)
    }

    /// The largest angle (degrees) between the rays from the centres to X.
    static func parallaxDegrees(_ x: SIMD3<Double>, centres: [SIMD3<Double>]) -> Double {
        var best = 0.0
        for i in centres.indices {
            for j in centres.indices where j > i {
                let a = normalize(x - centres[i]), b = normalize(x - centres[j])
                best = max(best, acos(min(1, max(-1, dot(a, b)))) * 180 / .pi)
            }
        }
        return best
    }
}
