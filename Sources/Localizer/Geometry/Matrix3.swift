import Foundation

/// A 3×3 matrix of `Double`, stored by rows.
public struct Matrix3: Sendable, Hashable, CustomStringConvertible {
    public var r0: Vector3
    public var r1: Vector3
    public var r2: Vector3

    /// A matrix from its three rows.
    @inlinable
    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    /// A matrix from its three columns.
    @inlinable
    public init(columns c0: Vector3, _ c1: Vector3, _ c2: Vector3) {
        r0 = Vector3(c0.x, c1.x, c2.x)
        r1 = Vector3(c0.y, c1.y, c2.y)
        r2 = Vector3(c0.z, c1.z, c2.z)
    }

    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
    public static let zero = Matrix3(rows: .zero, .zero, .zero)

    /// A diagonal matrix.
    @inlinable
    public static func diagonal(_ a: Double, _ b: Double, _ c: Double) -> Matrix3 {
        Matrix3(rows: Vector3(a, 0, 0), Vector3(0, b, 0), Vector3(0, 0, c))
    }

    /// The cross-product matrix: `skew(v) * w == v.cross(w)`.
    @inlinable
    public static func skew(_ v: Vector3) -> Matrix3 {
        Matrix3(rows: Vector3(0, -v.z, v.y), Vector3(v.z, 0, -v.x), Vector3(-v.y, v.x, 0))
    }

    @inlinable public var c0: Vector3 { Vector3(r0.x, r1.x, r2.x) }
    @inlinable public var c1: Vector3 { Vector3(r0.y, r1.y, r2.y) }
    @inlinable public var c2: Vector3 { Vector3(r0.z, r1.z, r2.z) }

    /// The element at `row`, `column` (both 0...2).
    public subscript(row: Int, column: Int) -> Double {
        let r = row == 0 ? r0 : (row == 1 ? r1 : r2)
        return column == 0 ? r.x : (column == 1 ? r.y : r.z)
    }

    @inlinable public var transposed: Matrix3 { Matrix3(rows: c0, c1, c2) }

    @inlinable public var determinant: Double { r0.dot(r1.cross(r2)) }

    @inlinable public var trace: Double { r0.x + r1.y + r2.z }

    /// The adjugate (transposed cofactor matrix): `m * m.adjugate == det(m) * I`.
    @inlinable public var adjugate: Matrix3 {
        Matrix3(columns: r1.cross(r2), r2.cross(r0), r0.cross(r1))
    }

    /// The inverse, or nil when the matrix is singular.
    public var inverse: Matrix3? {
        let d = determinant
        guard d != 0, d.isFinite else { return nil }
        let a = adjugate
        return Matrix3(rows: a.r0 / d, a.r1 / d, a.r2 / d)
    }

    @inlinable public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.r0.dot(v), m.r1.dot(v), m.r2.dot(v))
    }

    @inlinable public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c0 = b.c0, c1 = b.c1, c2 = b.c2
        return Matrix3(
            rows: Vector3(a.r0.dot(c0), a.r0.dot(c1), a.r0.dot(c2)),
            Vector3(a.r1.dot(c0), a.r1.dot(c1), a.r1.dot(c2)),
            Vector3(a.r2.dot(c0), a.r2.dot(c1), a.r2.dot(c2))
        )
    }

    @inlinable public static func * (s: Double, m: Matrix3) -> Matrix3 { Matrix3(rows: s * m.r0, s * m.r1, s * m.r2) }
    @inlinable public static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    @inlinable public static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }

    /// The rotation `exp([w]×)` by the angle `|w|` about the axis `w` (Rodrigues' formula).
    public static func rotation(axisAngle w: Vector3) -> Matrix3 {
        let theta2 = w.squaredNorm
        let k = skew(w)
        let k2 = k * k
        let a: Double
        let b: Double
        if theta2 < 1e-12 {
            // Taylor series: sin θ / θ and (1 - cos θ) / θ².
            a = 1 - theta2 / 6
            b = 0.5 - theta2 / 24
        } else {
            let theta = theta2.squareRoot()
            a = sin(theta) / theta
            b = (1 - cos(theta)) / theta2
        }
        return identity + a * k + b * k2
    }

    /// The nearest rotation matrix in the Frobenius sense, computed through the quaternion.
    public var orthonormalized: Matrix3 { Quaternion(rotation: self).rotationMatrix }

    /// The largest absolute element difference.
    public func maxDifference(_ b: Matrix3) -> Double {
        let d = self - b
        return [d.r0.x, d.r0.y, d.r0.z, d.r1.x, d.r1.y, d.r1.z, d.r2.x, d.r2.y, d.r2.z].map(abs).max() ?? 0
    }

    public var isFinite: Bool { r0.isFinite && r1.isFinite && r2.isFinite }

    public var description: String { "[\(r0); \(r1); \(r2)]" }
}

