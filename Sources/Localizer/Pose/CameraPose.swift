import Foundation

/// A camera pose in the output conventions of DESIGN.md.
///
/// - `position`: the camera centre in pack coordinates (metres, Y up).
/// - `rotation`: the camera-to-pack rotation with ARKit/OpenGL camera axes
///   (x right, y up, looking down -Z), as a unit quaternion `[x, y, z, w]`
///   with `w ≥ 0`.
/// - `forward`: the viewing direction (the camera's -Z) in pack coordinates.
/// - `heading`: degrees in [0, 360), clockwise seen from above, 0 along the
///   pack's -Z, 90 along +X. When the camera looks straight up or down
///   (forward within 0.01° of vertical) the heading is that of the image's up
///   direction instead (the camera's +Y for a camera looking down, -Y looking up).
///
/// The solver works in OpenCV camera axes (x right, y down, +z forward) with
/// world-to-camera `(R, t)`; the conversion is
/// `R_pack←arkit = Rᵀ · diag(1, -1, -1)`, `position = -Rᵀ t`.
public struct CameraPose: Sendable, Hashable {
    public var position: Vector3
    public var rotation: Quaternion
    public var forward: Vector3
    public var heading: Double

    /// The flip between OpenCV and ARKit camera axes (its own inverse).
    static let axisFlip = Matrix3.diagonal(1, -1, -1)

    /// The output pose of a world-to-camera motion in OpenCV camera axes.
    public init(worldToCamera pose: RigidTransform) {
        let cameraToPack = pose.rotation.transposed * CameraPose.axisFlip
        position = pose.cameraCenter
        rotation = Quaternion(rotation: cameraToPack)
        forward = -cameraToPack.c2
        var horizontal = forward
        if Vector3(horizontal.x, 0, horizontal.z).norm < sin(0.01 * Double.pi / 180) {
            // Looking straight up or down: the top of the image gives the heading.
            let up = cameraToPack.c1
            horizontal = forward.y < 0 ? up : -up
        }
        heading = CameraPose.heading(of: horizontal)
    }

    /// The camera-to-pack rotation matrix (ARKit camera axes).
    public var rotationMatrix: Matrix3 { rotation.rotationMatrix }

    /// The world-to-camera motion in OpenCV camera axes this pose came from.
    public var worldToCamera: RigidTransform {
        let r = (rotation.rotationMatrix * CameraPose.axisFlip).transposed
        return RigidTransform(rotation: r, translation: -(r * position))
    }

    /// The heading in [0, 360) of a direction in pack coordinates: clockwise
    /// from -Z seen from above (Y up), so +X is 90.
    public static func heading(of direction: Vector3) -> Double {
        let degrees = atan2(direction.x, -direction.z) * 180 / Double.pi
        return normalizedDegrees(degrees)
    }

    /// An angle in degrees brought into [0, 360).
    static func normalizedDegrees(_ degrees: Double) -> Double {
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        if d >= 360 { d -= 360 }
        return d
    }
}
