import Foundation

/// The gravity direction measured in the camera frame, used to reject poses
/// whose implied "down" disagrees with it.
///
/// The direction is given as ARKit/Core Motion gives it: a vector pointing
/// *down*, in camera axes x right, y up, looking down -Z. The pack frame is
/// Y up, so gravity in the pack frame is (0, -1, 0).
public struct GravityPrior: Sendable, Hashable {
    /// Unit gravity direction in OpenCV camera axes (x right, y down, +z forward).
    public let directionInOpenCVCamera: Vector3
    /// The largest accepted angle between measured and implied gravity, in degrees.
    public let toleranceDegrees: Double
    let cosTolerance: Double

    /// - Parameters:
    ///   - direction: gravity in ARKit camera axes (x right, y up, -z forward); any non-zero length.
    ///   - toleranceDegrees: the accepted disagreement, in degrees (default 5).
    /// - Throws: ``LocalizerError`` (`.invalidOption`) when the vector is zero or not finite.
    public init(cameraGravity direction: Vector3, toleranceDegrees: Double = 5) throws(LocalizerError) {
        guard direction.isFinite, direction.norm > 1e-6 else {
            throw LocalizerError(.invalidOption, "--gravity \(direction.x),\(direction.y),\(direction.z): need a finite, non-zero direction")
        }
        guard toleranceDegrees > 0, toleranceDegrees < 90 else {
            throw LocalizerError(.invalidOption, "gravity tolerance \(toleranceDegrees)° must lie in (0, 90)")
        }
        let d = direction.normalized
        directionInOpenCVCamera = Vector3(d.x, -d.y, -d.z)
        self.toleranceDegrees = toleranceDegrees
        cosTolerance = cos(toleranceDegrees * Double.pi / 180)
    }

    /// Parses the `--gravity x,y,z` option: the down direction in ARKit camera axes.
    ///
    /// - Throws: ``LocalizerError`` (`.invalidOption`) when the text is not three numbers or the vector is zero.
    public static func parse(_ text: String) throws(LocalizerError) -> GravityPrior {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2] else {
            throw LocalizerError(.invalidOption, "--gravity '\(text)': expected three numbers x,y,z in camera axes (x right, y up, -z forward)")
        }
        return try GravityPrior(cameraGravity: Vector3(x, y, z))
    }

    /// The gravity direction a world-to-camera pose implies, in OpenCV camera axes: `R (0, -1, 0)`.
    @inlinable
    public static func impliedGravity(_ pose: RigidTransform) -> Vector3 {
        -pose.rotation.c1
    }

    /// True when `pose` agrees with the measured gravity within the tolerance.
    public func accepts(_ pose: RigidTransform) -> Bool {
        GravityPrior.impliedGravity(pose).dot(directionInOpenCVCamera) >= cosTolerance
    }

    /// The angle in degrees between measured and implied gravity.
    public func disagreementDegrees(_ pose: RigidTransform) -> Double {
        GravityPrior.impliedGravity(pose).angle(to: directionInOpenCVCamera) * 180 / Double.pi
    }
}
