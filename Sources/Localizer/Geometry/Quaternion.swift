import Foundation

/// A unit quaternion `x i + y j + z k + w` representing a rotation.
///
/// Components are in `[x, y, z, w]` order, as `simd_quatd` and glTF store them.
public struct Quaternion: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double

    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    /// The rotation by `angle` radians about `axis` (need not be unit length).
    public init(axis: Vector3, angle: Double) {
        let a = axis.normalized
        let s = sin(angle / 2)
        self.init(x: a.x * s, y: a.y * s, z: a.z * s, w: cos(angle / 2))
    }

    /// The quaternion of a rotation matrix, with `w >= 0` (Shepperd's method).
    ///
    /// The branch on the largest diagonal term keeps the square root away from
    /// zero, so the conversion is accurate for every rotation.
    public init(rotation m: Matrix3) {
        let trace = m.r0.x + m.r1.y + m.r2.z
        var q: Quaternion
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = Quaternion(x: (m.r2.y - m.r1.z) / s, y: (m.r0.z - m.r2.x) / s, z: (m.r1.x - m.r0.y) / s, w: s / 4)
        } else if m.r0.x > m.r1.y && m.r0.x > m.r2.z {
            let s = (1 + m.r0.x - m.r1.y - m.r2.z).squareRoot() * 2
            q = Quaternion(x: s / 4, y: (m.r0.y + m.r1.x) / s, z: (m.r0.z + m.r2.x) / s, w: (m.r2.y - m.r1.z) / s)
        } else if m.r1.y > m.r2.z {
            let s = (1 + m.r1.y - m.r0.x - m.r2.z).squareRoot() * 2
            q = Quaternion(x: (m.r0.y + m.r1.x) / s, y: s / 4, z: (m.r1.z + m.r2.y) / s, w: (m.r0.z - m.r2.x) / s)
        } else {
            let s = (1 + m.r2.z - m.r0.x - m.r1.y).squareRoot() * 2
            q = Quaternion(x: (m.r0.z + m.r2.x) / s, y: (m.r1.z + m.r2.y) / s, z: s / 4, w: (m.r1.x - m.r0.y) / s)
        }
        q = q.normalized
        self = q.w < 0 ? Quaternion(x: -q.x, y: -q.y, z: -q.z, w: -q.w) : q
    }

    public var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }

    public var normalized: Quaternion {
        let n = norm
        return Quaternion(x: x / n, y: y / n, z: z / n, w: w / n)
    }

    /// The rotation matrix of this (unit) quaternion.
    public var rotationMatrix: Matrix3 {
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z
        let wx = w * x, wy = w * y, wz = w * z
        return Matrix3(
            rows: Vector3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
            Vector3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
            Vector3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy))
        )
    }

    /// The Hamilton product `self * b` (apply `b` first, then `self`).
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z
        )
    }

    /// The angle in radians of the rotation taking `self` to `b`, in [0, π].
    public func angle(to b: Quaternion) -> Double {
        let d = abs(x * b.x + y * b.y + z * b.z + w * b.w)
        return 2 * acos(min(1, d))
    }

    /// `[x, y, z, w]`.
    public var array: [Double] { [x, y, z, w] }

    public var description: String { "[\(x), \(y), \(z), \(w)]" }
}

