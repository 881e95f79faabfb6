import Foundation

/// A camera-to-world rigid transform in the pack's convention.
///
/// World: metres, Y up, right-handed. Camera axes as OpenGL/ARKit: x right,
/// y up, the camera looks down -Z. This is the convention of DESIGN.md and of
/// instant-ngp/nerfstudio `transform_matrix`.
public struct CapturePose: Sendable, Equatable {
    /// Columns are the camera's x, y, z axes expressed in world coordinates.
    public var rotation: Mat3
    /// The camera centre in world coordinates.
    public var position: SIMD3<Double>

    public init(rotation: Mat3, position: SIMD3<Double>) {
        self.rotation = rotation
        self.position = position
    }

    /// A camera at `position` with a yaw (heading, degrees clockwise from above
    /// starting at -Z), pitch (degrees, up positive) and roll (degrees).
    public init(position: SIMD3<Double>, headingDegrees: Double, pitchDegrees: Double, rollDegrees: Double = 0) {
        let yaw = Mat3.rotation(axis: SIMD3(0, 1, 0), angle: -headingDegrees * .pi / 180)
        let pitch = Mat3.rotation(axis: SIMD3(1, 0, 0), angle: pitchDegrees * .pi / 180)
        let roll = Mat3.rotation(axis: SIMD3(0, 0, 1), angle: rollDegrees * .pi / 180)
        self.init(rotation: yaw * pitch * roll, position: position)
    }

    /// The 4×4 camera-to-world matrix as four rows (the `transform_matrix` layout).
    public var matrixRows: [[Double]] {
        (0..<3).map { i in
            let r = rotation.row(i)
            return [r.x, r.y, r.z, position[i]]
        } + [[0, 0, 0, 1]]
    }

    /// Builds a pose from four rows of a 4×4 matrix; the rotation block is
    /// re-orthonormalised so that small rounding in files does not matter.
    public init?(matrixRows m: [[Double]]) {
        guard m.count >= 3, m[0].count == 4, m[1].count == 4, m[2].count == 4 else { return nil }
        var x = SIMD3(m[0][0], m[1][0], m[2][0])
        var y = SIMD3(m[0][1], m[1][1], m[2][1])
        let z0 = SIMD3(m[0][2], m[1][2], m[2][2])
        let sx = length(x), sy = length(y), sz = length(z0)
        guard sx > 1e-9, sy > 1e-9, sz > 1e-9 else { return nil }
        x = normalize(x)
        y = normalize(y - dot(y, x) * x)
        var z = cross(x, y)
        if dot(z, z0) < 0 { z = -z }
        rotation = Mat3(columns: x, y, z)
        position = SIMD3(m[0][3], m[1][3], m[2][3])
    }

    /// The direction the camera looks along (its -Z axis) in world coordinates.
    public var forward: SIMD3<Double> { -rotation.c2 }

    /// Heading in degrees in [0, 360): clockwise seen from above, 0 along world -Z.
    public var headingDegrees: Double {
        let f = forward
        var h = atan2(f.x, -f.z) * 180 / .pi
        if h < 0 { h += 360 }
        if h >= 360 { h -= 360 }
        return h
    }

    /// A world point in camera coordinates (OpenGL axes: in front means z < 0).
    public func toCamera(_ p: SIMD3<Double>) -> SIMD3<Double> {
        rotation.transposed * (p - position)
    }

    /// A camera-frame point in world coordinates.
    public func toWorld(_ p: SIMD3<Double>) -> SIMD3<Double> {
        rotation * p + position
    }
}

/// A pinhole camera with optional radial-tangential distortion (OpenCV model).
///
/// Image coordinates: pixels, origin at the top-left corner of the top-left
/// pixel, x right, y down; the centre of pixel (i, j) is (i + 0.5, j + 0.5),
/// as in COLMAP, nerfstudio and instant-ngp files. The localizer (and the
/// pack's keyframes) put pixel centres at integers instead, as OpenCV and
/// ARKit do: ``localizerCX`` and ``localizerCY`` give the principal point there.
public struct CaptureCamera: Sendable, Equatable, Codable {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double
    public var width: Int
    public var height: Int
    public var k1: Double
    public var k2: Double
    public var p1: Double
    public var p2: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int,
                k1: Double = 0, k2: Double = 0, p1: Double = 0, p2: Double = 0) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.width = width
        self.height = height
        self.k1 = k1
        self.k2 = k2
        self.p1 = p1
        self.p2 = p2
    }

    public var hasDistortion: Bool { k1 != 0 || k2 != 0 || p1 != 0 || p2 != 0 }

    /// The principal point with pixel centres at integer coordinates (the localizer's convention).
    public var localizerCX: Double { cx - 0.5 }
    public var localizerCY: Double { cy - 0.5 }

    /// Projects a camera-frame point (OpenGL axes) to pixels; nil behind the camera.
    public func project(_ pc: SIMD3<Double>) -> SIMD2<Double>? {
        guard pc.z < -1e-9 else { return nil }
        var x = pc.x / -pc.z
        var y = -pc.y / -pc.z
        if hasDistortion {
            let r2 = x * x + y * y
            let radial = 1 + k1 * r2 + k2 * r2 * r2
            let xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            let yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x = xd
            y = yd
        }
        return SIMD2(fx * x + cx, fy * y + cy)
    }

    /// The unit-depth camera-frame ray (OpenGL axes, z = -1) through a pixel position,
    /// undistorting iteratively when the model has distortion.
    public func ray(_ pixel: SIMD2<Double>) -> SIMD3<Double> {
        var x = (pixel.x - cx) / fx
        var y = (pixel.y - cy) / fy
        if hasDistortion {
            let xd = x, yd = y
            for _ in 0..<20 {
                let r2 = x * x + y * y
                let radial = 1 + k1 * r2 + k2 * r2 * r2
                let dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
                let dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
                x = (xd - dx) / radial
                y = (yd - dy) / radial
            }
        }
        return SIMD3(x, -y, -1)
    }
}
