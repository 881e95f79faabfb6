/// A rigid motion `p ↦ R p + t`.
///
/// The pose solver keeps the *world-to-camera* motion in OpenCV camera axes
/// (x right, y down, +z forward): a map point `X` is seen at `R X + t`.
/// ``CameraPose`` converts it to the camera-to-pack ARKit convention of the output.
public struct RigidTransform: Sendable, Hashable {
    public var rotation: Matrix3
    public var translation: Vector3

    public init(rotation: Matrix3, translation: Vector3) {
        self.rotation = rotation
        self.translation = translation
    }

    public static let identity = RigidTransform(rotation: .identity, translation: .zero)

    /// `R p + t`.
    @inlinable
    public func apply(_ p: Vector3) -> Vector3 { rotation * p + translation }

    /// The inverse motion `p ↦ Rᵀ (p - t)`.
    public var inverse: RigidTransform {
        let rt = rotation.transposed
        return RigidTransform(rotation: rt, translation: -(rt * translation))
    }

    /// `self ∘ b`: first `b`, then `self`.
    public static func * (a: RigidTransform, b: RigidTransform) -> RigidTransform {
        RigidTransform(rotation: a.rotation * b.rotation, translation: a.rotation * b.translation + a.translation)
    }

    /// For a world-to-camera motion, the camera centre in world coordinates: `-Rᵀ t`.
    public var cameraCenter: Vector3 { -(rotation.transposed * translation) }

    public var isFinite: Bool { rotation.isFinite && translation.isFinite }
}
