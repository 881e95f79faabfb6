import Foundation
import Localizer

/// Synthetic scenes with exact poses for the pose tests.
struct SyntheticScene {
    var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &generator)
    }

    mutating func gaussian() -> Double {
        // Box-Muller.
        let u1 = max(uniform(0...1), 1e-300)
        let u2 = uniform(0...1)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// A uniformly random rotation (normalized Gaussian quaternion).
    mutating func rotation() -> Matrix3 {
        Quaternion(x: gaussian(), y: gaussian(), z: gaussian(), w: gaussian()).normalized.rotationMatrix
    }

    /// A random world-to-camera pose whose camera centre lies in a 20 m box.
    mutating func pose() -> RigidTransform {
        let r = rotation()
        let centre = Vector3(uniform(-10...10), uniform(-10...10), uniform(-10...10))
        return RigidTransform(rotation: r, translation: -(r * centre))
    }

    /// A world point seen by `pose` at a random pixel of a `width`×`height` image, at depth 1-20 m.
    mutating func visiblePoint(pose: RigidTransform, camera: CameraIntrinsics, width: Double, height: Double) -> (pixel: (u: Double, v: Double), world: Vector3) {
        let u = uniform(0...(width - 1))
        let v = uniform(0...(height - 1))
        let n = camera.undistort(u: u, v: v)!
        let depth = uniform(1...20)
        let cameraPoint = Vector3(n.x * depth, n.y * depth, depth)
        return ((u, v), pose.inverse.apply(cameraPoint))
    }
}

/// The rotation angle between two world-to-camera poses, in degrees.
func rotationErrorDegrees(_ a: RigidTransform, _ b: RigidTransform) -> Double {
    Quaternion(rotation: a.rotation).angle(to: Quaternion(rotation: b.rotation)) * 180 / Double.pi
}

/// The distance between the camera centres of two world-to-camera poses.
func positionError(_ a: RigidTransform, _ b: RigidTransform) -> Double {
    (a.cameraCenter - b.cameraCenter).norm
}

/// A synthetic localization problem: a fraction of correspondences are true
/// (with Gaussian pixel noise), the rest pair map points with random pixels.
struct SyntheticCorrespondences {
    var truth: RigidTransform
    var camera: CameraIntrinsics
    var width: Double
    var height: Double
    var pixels: [SIMD2<Double>]
    var points: [Vector3]
    var isInlier: [Bool]

    init(seed: UInt64, count: Int, outlierRatio: Double, noise: Double,
         camera: CameraIntrinsics = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5),
         width: Double = 640, height: Double = 480) {
        var scene = SyntheticScene(seed: seed)
        self.camera = camera
        self.width = width
        self.height = height
        truth = scene.pose()
        pixels = []
        points = []
        isInlier = []
        let outliers = Int((Double(count) * outlierRatio).rounded())
        for k in 0..<count {
            let (pixel, world) = scene.visiblePoint(pose: truth, camera: camera, width: width, height: height)
            points.append(world)
            if k < outliers {
                pixels.append(SIMD2(scene.uniform(0...(width - 1)), scene.uniform(0...(height - 1))))
                isInlier.append(false)
            } else {
                pixels.append(SIMD2(pixel.u + noise * scene.gaussian(), pixel.v + noise * scene.gaussian()))
                isInlier.append(true)
            }
        }
        // Shuffle so inliers and outliers interleave.
        var order = Array(0..<count)
        order.shuffle(using: &scene.generator)
        pixels = order.map { pixels[$0] }
        points = order.map { points[$0] }
        isInlier = order.map { isInlier[$0] }
    }

    var problem: PoseProblem {
        PoseProblem.fromPixels(pixels, points: points, camera: camera).problem
    }
}
