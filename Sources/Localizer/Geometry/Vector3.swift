import Foundation

/// A 3-vector of `Double`, for the pose solver's small linear algebra.
///
/// A plain value type rather than `SIMD3<Double>` so that every operation is
/// spelled out and the same code builds on every platform without `simd`.
public struct Vector3: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(0, 0, 0)

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(s * a.x, s * a.y, s * a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(s * a.x, s * a.y, s * a.z) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }

    /// The dot product.
    @inlinable public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }

    /// The cross product `self × b`.
    @inlinable public func cross(_ b: Vector3) -> Vector3 {
        Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }

    @inlinable public var squaredNorm: Double { x * x + y * y + z * z }
    @inlinable public var norm: Double { squaredNorm.squareRoot() }

    /// The unit vector along `self`; `self` unchanged when it is zero.
    @inlinable public var normalized: Vector3 {
        let n = norm
        return n > 0 ? self / n : self
    }

    /// True when every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The angle between `self` and `b` in radians, in [0, π].
    public func angle(to b: Vector3) -> Double {
        // atan2 of |a×b| and a·b stays accurate near 0 and π, unlike acos.
        atan2(cross(b).norm, dot(b))
    }

    public var array: [Double] { [x, y, z] }

    public var description: String { "(\(x), \(y), \(z))" }
}

