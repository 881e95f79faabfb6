import Foundation

/// A pinhole camera with OpenCV radial-tangential distortion (k1, k2, p1, p2).
///
/// Pixel convention: pixel centres sit at integer coordinates, the top-left
/// pixel's centre is (0, 0) and the image spans [-0.5, width - 0.5] — the
/// convention of OpenCV, COLMAP's OPENCV model minus its 0.5 shift, and ARKit's
/// intrinsics. A pixel `(u, v)` of the normalized, undistorted point `(x, y)` is
///
///     r² = x² + y²
///     x' = x (1 + k1 r² + k2 r⁴) + 2 p1 x y + p2 (r² + 2 x²)
///     y' = y (1 + k1 r² + k2 r⁴) + p1 (r² + 2 y²) + 2 p2 x y
///     u  = fx x' + cx,   v = fy y' + cy
///
/// Normalized coordinates use OpenCV camera axes: x right, y down, +z forward.
public struct CameraIntrinsics: Sendable, Hashable, CustomStringConvertible {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double
    public var k1: Double
    public var k2: Double
    public var p1: Double
    public var p2: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double, k1: Double = 0, k2: Double = 0, p1: Double = 0, p2: Double = 0) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.k1 = k1
        self.k2 = k2
        self.p1 = p1
        self.p2 = p2
    }

    /// True when all four distortion coefficients are zero.
    public var hasDistortion: Bool { k1 != 0 || k2 != 0 || p1 != 0 || p2 != 0 }

    /// The intrinsics of the same camera when its image is resampled by `s`
    /// (for example `s = 0.5` when a JPEG is decoded at half size).
    ///
    /// With pixel centres at integer coordinates, a point at `u` in the original
    /// image lands at `(u + 0.5) s - 0.5` in the resampled one, so
    /// `fx' = s fx` and `cx' = (cx + 0.5) s - 0.5` (same for y). Distortion
    /// acts on normalized coordinates and is unchanged.
    public func scaled(by s: Double) -> CameraIntrinsics {
        scaled(x: s, y: s)
    }

    /// The intrinsics after resampling by `sx` horizontally and `sy` vertically.
    public func scaled(x sx: Double, y sy: Double) -> CameraIntrinsics {
        CameraIntrinsics(
            fx: fx * sx, fy: fy * sy,
            cx: (cx + 0.5) * sx - 0.5, cy: (cy + 0.5) * sy - 0.5,
            k1: k1, k2: k2, p1: p1, p2: p2
        )
    }

    /// Applies the distortion model to a normalized, undistorted point.
    @inlinable
    public func distort(x: Double, y: Double) -> (x: Double, y: Double) {
        let r2 = x * x + y * y
        let radial = 1 + r2 * (k1 + k2 * r2)
        let xy2 = 2 * x * y
        return (x * radial + p1 * xy2 + p2 * (r2 + 2 * x * x), y * radial + p1 * (r2 + 2 * y * y) + p2 * xy2)
    }

    /// The pixel of a normalized, undistorted point.
    @inlinable
    public func project(x: Double, y: Double) -> (u: Double, v: Double) {
        let d = distort(x: x, y: y)
        return (fx * d.x + cx, fy * d.y + cy)
    }

    /// The pixel of a point in camera coordinates (OpenCV axes), or nil behind the camera.
    public func project(_ p: Vector3) -> (u: Double, v: Double)? {
        guard p.z > 0 else { return nil }
        return project(x: p.x / p.z, y: p.y / p.z)
    }

    /// The normalized, undistorted point of a pixel, or nil when the
    /// distortion cannot be inverted there.
    ///
    /// Without distortion this is exact. With distortion it runs Gauss-Newton
    /// on the 2×2 system `distort(x, y) = (x', y')` from `(x', y')`, and accepts
    /// the result only if distorting it again lands within 1e-9 (normalized
    /// units) of the input, so a coefficient set that folds the image over
    /// itself yields nil instead of a wrong bearing.
    public func undistort(u: Double, v: Double) -> (x: Double, y: Double)? {
        let xd = (u - cx) / fx
        let yd = (v - cy) / fy
        guard hasDistortion else { return (xd, yd) }
        var x = xd
        var y = yd
        for _ in 0..<20 {
            let r2 = x * x + y * y
            let radial = 1 + r2 * (k1 + k2 * r2)
            let dRadial = k1 + 2 * k2 * r2  // d radial / d r2
            let ex = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x) - xd
            let ey = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y - yd
            if ex * ex + ey * ey < 1e-26 { break }
            // Jacobian of the distortion map.
            let j00 = radial + 2 * x * x * dRadial + 2 * p1 * y + 6 * p2 * x
            let j01 = 2 * x * y * dRadial + 2 * p1 * x + 2 * p2 * y
            let j10 = 2 * x * y * dRadial + 2 * p1 * x + 2 * p2 * y
            let j11 = radial + 2 * y * y * dRadial + 6 * p1 * y + 2 * p2 * x
            let det = j00 * j11 - j01 * j10
            guard abs(det) > 1e-12 else { return nil }
            x -= (j11 * ex - j01 * ey) / det
            y -= (-j10 * ex + j00 * ey) / det
        }
        let check = distort(x: x, y: y)
        let dx = check.x - xd
        let dy = check.y - yd
        guard x.isFinite, y.isFinite, dx * dx + dy * dy < 1e-18 else { return nil }
        // The Jacobian must stay orientation-preserving: past the fold of the
        // radial polynomial a second, spurious preimage exists.
        let r2 = x * x + y * y
        guard 1 + r2 * (3 * k1 + 5 * k2 * r2) > 0 else { return nil }
        return (x, y)
    }

    /// The unit bearing (OpenCV camera axes) of a pixel, or nil where undistortion fails.
    public func bearing(u: Double, v: Double) -> Vector3? {
        guard let n = undistort(u: u, v: v) else { return nil }
        return Vector3(n.x, n.y, 1).normalized
    }

    /// Checks that the intrinsics are usable for an image of the given size.
    ///
    /// Rejects non-finite values, non-positive focal lengths, focal lengths
    /// outside [0.05, 100] image widths (fields of view of about 179° to 0.6°),
    /// aspect ratios fx/fy outside [0.2, 5], principal points more than one
    /// image size outside the image, distortion coefficients beyond ±10, and
    /// distortion that cannot be inverted at the image corners.
    ///
    /// - Throws: ``LocalizerError`` (`.invalidIntrinsics`) naming the field.
    public func validate(width: Int, height: Int) throws(LocalizerError) {
        func fail(_ what: String) -> LocalizerError {
            LocalizerError(.invalidIntrinsics, "intrinsics \(self): \(what)")
        }
        for (name, value) in [("fx", fx), ("fy", fy), ("cx", cx), ("cy", cy), ("k1", k1), ("k2", k2), ("p1", p1), ("p2", p2)] {
            guard value.isFinite else { throw fail("\(name) is not a finite number") }
        }
        guard fx > 0, fy > 0 else { throw fail("focal lengths fx and fy must be positive") }
        guard width > 0, height > 0 else { throw fail("image size \(width)x\(height) is empty") }
        let size = Double(max(width, height))
        guard fx >= 0.05 * size, fx <= 100 * size, fy >= 0.05 * size, fy <= 100 * size else {
            throw fail("focal length must be between 0.05 and 100 times the image size \(width)x\(height)")
        }
        guard fx / fy >= 0.2, fx / fy <= 5 else { throw fail("aspect ratio fx/fy = \(fx / fy) is implausible") }
        let w = Double(width)
        let h = Double(height)
        guard cx >= -w, cx <= 2 * w, cy >= -h, cy <= 2 * h else {
            throw fail("principal point (\(cx), \(cy)) lies more than one image size outside the \(width)x\(height) image")
        }
        for (name, value) in [("k1", k1), ("k2", k2), ("p1", p1), ("p2", p2)] where abs(value) > 10 {
            throw fail("distortion coefficient \(name) = \(value) is beyond ±10")
        }
        if hasDistortion {
            for (u, v) in [(-0.5, -0.5), (w - 0.5, -0.5), (-0.5, h - 0.5), (w - 0.5, h - 0.5), (w / 2, -0.5), (-0.5, h / 2)] {
                guard undistort(u: u, v: v) != nil else {
                    throw fail("distortion cannot be inverted at pixel (\(u), \(v)) of the \(width)x\(height) image")
                }
            }
        }
    }

    public var description: String {
        var parts = [fx, fy, cx, cy]
        if hasDistortion { parts += [k1, k2, p1, p2] }
        return parts.map { String($0) }.joined(separator: ",")
    }
}
