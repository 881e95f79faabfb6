import Foundation

/// A 3×3 matrix of doubles stored by columns; enough linear algebra for poses.
public struct Mat3: Sendable, Equatable {
    public var c0: SIMD3<Double>
    public var c1: SIMD3<Double>
    public var c2: SIMD3<Double>

    public init(columns c0: SIMD3<Double>, _ c1: SIMD3<Double>, _ c2: SIMD3<Double>) {
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
    }

    /// Builds a matrix from its rows.
    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        c0 = SIMD3(r0.x, r1.x, r2.x)
        c1 = SIMD3(r0.y, r1.y, r2.y)
        c2 = SIMD3(r0.z, r1.z, r2.z)
    }

    public static let identity = Mat3(columns: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    /// Row `i` of the matrix.
    public func row(_ i: Int) -> SIMD3<Double> { SIMD3(c0[i], c1[i], c2[i]) }

    public var transposed: Mat3 { Mat3(rows: c0, c1, c2) }

    public static func * (m: Mat3, v: SIMD3<Double>) -> SIMD3<Double> {
        m.c0 * v.x + m.c1 * v.y + m.c2 * v.z
    }

    public static func * (a: Mat3, b: Mat3) -> Mat3 {
        Mat3(columns: a * b.c0, a * b.c1, a * b.c2)
    }

    public var determinant: Double { dot(c0, cross(c1, c2)) }

    /// A rotation about the unit `axis` by `angle` radians (right-handed).
    public static func rotation(axis: SIMD3<Double>, angle: Double) -> Mat3 {
        let a = normalize(axis)
        let c = cos(angle), s = sin(angle), t = 1 - c
        return Mat3(rows:
            SIMD3(t * a.x * a.x + c, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y),
            SIMD3(t * a.x * a.y + s * a.z, t * a.y * a.y + c, t * a.y * a.z - s * a.x),
            SIMD3(t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, t * a.z * a.z + c))
    }

    /// The rotation of the unit quaternion (w, x, y, z); normalises first.
    public init(quaternionW w: Double, x: Double, y: Double, z: Double) {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        let (w, x, y, z) = n > 0 ? (w / n, x / n, y / n, z / n) : (1, 0, 0, 0)
        self.init(rows:
            SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// The unit quaternion of a rotation matrix as (x, y, z, w), with w ≥ 0.
    public var quaternion: SIMD4<Double> {
        let m00 = c0.x, m11 = c1.y, m22 = c2.z
        let trace = m00 + m11 + m22
        var q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4((c1.z - c2.y) / s, (c2.x - c0.z) / s, (c0.y - c1.x) / s, s / 4)
        } else if m00 > m11 && m00 > m22 {
            let s = (1 + m00 - m11 - m22).squareRoot() * 2
            q = SIMD4(s / 4, (c1.x + c0.y) / s, (c2.x + c0.z) / s, (c1.z - c2.y) / s)
        } else if m11 > m22 {
            let s = (1 + m11 - m00 - m22).squareRoot() * 2
            q = SIMD4((c1.x + c0.y) / s, s / 4, (c2.y + c1.z) / s, (c2.x - c0.z) / s)
        } else {
            let s = (1 + m22 - m00 - m11).squareRoot() * 2
            q = SIMD4((c2.x + c0.z) / s, (c2.y + c1.z) / s, s / 4, (c0.y - c1.x) / s)
        }
        if q.w < 0 { q = -q }
        let n = (q * q).sum().squareRoot()
        return q / n
    }
}

@inlinable func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }

@inlinable func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable func length(_ a: SIMD3<Double>) -> Double { (a * a).sum().squareRoot() }

@inlinable func normalize(_ a: SIMD3<Double>) -> SIMD3<Double> {
    let n = length(a)
    return n > 0 ? a / n : a
}
