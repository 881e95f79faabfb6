import Foundation
import Localizer
import PackFormat
import VPSImageIO

/// A textured wall rendered by ray casting, for end-to-end localization tests.
///
/// The wall is the plane z = -3 of the pack frame (Y up), textured over
/// x ∈ [-2, 2], y ∈ [-0.5, 3.5] with random rectangles and discs. A map is
/// made from one or more reference views: each keypoint is back-projected
/// onto the wall and becomes a map point carrying its descriptor.
struct WallScene {
    static let textureSize = 1024
    let texture: [UInt8]
    static let camera = CameraIntrinsics(fx: 520, fy: 520, cx: 319.5, cy: 239.5)
    static let width = 640
    static let height = 480

    init(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        let n = WallScene.textureSize
        var t = [UInt8](repeating: 128, count: n * n)
        for _ in 0..<260 {
            let w = Int.random(in: 12...90, using: &g), h = Int.random(in: 12...90, using: &g)
            let x0 = Int.random(in: 0..<(n - w), using: &g), y0 = Int.random(in: 0..<(n - h), using: &g)
            let value = UInt8.random(in: 0...255, using: &g)
            let disc = Bool.random(using: &g)
            for y in y0..<(y0 + h) {
                for x in x0..<(x0 + w) {
                    if disc {
                        let dx = Double(x - x0) / Double(w) - 0.5, dy = Double(y - y0) / Double(h) - 0.5
                        if dx * dx + dy * dy > 0.25 { continue }
                    }
                    t[y * n + x] = value
                }
            }
        }
        texture = t
    }

    /// World-to-camera (OpenCV axes) of a camera at `position` turned by `yaw`
    /// degrees clockwise seen from above, pitched by `pitch` degrees up, looking at the wall.
    static func pose(position: Vector3, yaw: Double, pitch: Double = 0) -> RigidTransform {
        let turn = Matrix3.rotation(axisAngle: Vector3(0, -yaw * Double.pi / 180, 0))
        let tilt = Matrix3.rotation(axisAngle: Vector3(pitch * Double.pi / 180, 0, 0))
        let arkit = turn * tilt
        let r = (arkit * Matrix3.diagonal(1, -1, -1)).transposed
        return RigidTransform(rotation: r, translation: -(r * position))
    }

    /// The wall point seen at pixel (u, v), or nil when the ray misses the textured area.
    func wallPoint(_ pose: RigidTransform, u: Double, v: Double, camera k: CameraIntrinsics = WallScene.camera) -> Vector3? {
        let dCamera = Vector3((u - k.cx) / k.fx, (v - k.cy) / k.fy, 1)
        let d = pose.rotation.transposed * dCamera
        let c = pose.cameraCenter
        guard d.z < -1e-9 else { return nil }
        let s = (-3 - c.z) / d.z
        guard s > 0 else { return nil }
        let p = c + s * d
        guard p.x > -2, p.x < 2, p.y > -0.5, p.y < 3.5 else { return nil }
        return p
    }

    func sample(_ p: Vector3) -> UInt8 {
        let n = WallScene.textureSize
        let tx = (p.x + 2) / 4 * Double(n) - 0.5, ty = (3.5 - p.y) / 4 * Double(n) - 0.5
        let x0 = max(0, min(n - 2, Int(tx.rounded(.down)))), y0 = max(0, min(n - 2, Int(ty.rounded(.down))))
        let fx = max(0, min(1, tx - Double(x0))), fy = max(0, min(1, ty - Double(y0)))
        let a = Double(texture[y0 * n + x0]), b = Double(texture[y0 * n + x0 + 1])
        let c = Double(texture[(y0 + 1) * n + x0]), d = Double(texture[(y0 + 1) * n + x0 + 1])
        let value = (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
        return UInt8(max(0, min(255, value.rounded())))
    }

    func render(_ pose: RigidTransform, camera: CameraIntrinsics = WallScene.camera, width: Int = WallScene.width, height: Int = WallScene.height) -> GrayImage {
        var pixels = [UInt8](repeating: 40, count: width * height)
        for v in 0..<height {
            for u in 0..<width {
                if let p = wallPoint(pose, u: Double(u), v: Double(v), camera: camera) { pixels[v * width + u] = sample(p) }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// A map from reference views: every keypoint on the wall becomes a point with its descriptor.
    func map(views: [RigidTransform]) throws -> LocalizationMap {
        var points: [MapPoint] = []
        var descriptors: [BinaryDescriptor] = []
        var owners: [UInt32] = []
        let extractor = FeatureExtractor(.init(maxFeatures: 1500))
        for view in views {
            let features = extractor.extract(render(view))
            for (k, d) in zip(features.keypoints, features.descriptors) {
                guard let p = wallPoint(view, u: Double(k.x), v: Double(k.y)) else { continue }
                owners.append(UInt32(points.count))
                points.append(MapPoint(x: Float(p.x), y: Float(p.y), z: Float(p.z)))
                descriptors.append(d)
            }
        }
        return LocalizationMap(try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: []))
    }

    /// Writes `image` as a PNG in a fresh temporary directory; returns its path.
    static func writePNG(_ image: GrayImage, name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try ImageEncoder.write(try ImageEncoder.png(image), to: path)
        return path
    }
}
