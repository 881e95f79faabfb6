/// Draws a localization's keypoints, inliers and outliers over the query image
/// (`vpspack localize --debug-image`).
///
/// Colours: every detected keypoint a small grey-blue dot; matches that are
/// outliers of the best pose a red ring; inliers a green ring with a bright
/// centre. The image is darkened slightly so the marks stand out.
public enum DebugOverlay {
    /// RGB bytes (3 per pixel, rows top to bottom) of the overlay.
    ///
    /// - Parameter debug: the decoded query with its keypoints and matches.
    public static func render(_ debug: LocalizationResult.DebugData) -> [UInt8] {
        let width = debug.width, height = debug.height
        let gray = debug.image
        precondition(gray.count == width * height, "one gray byte per pixel")
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let v = UInt8(Int(gray[i]) * 3 / 4)
            rgb[3 * i] = v
            rgb[3 * i + 1] = v
            rgb[3 * i + 2] = v
        }
        func plot(_ x: Int, _ y: Int, _ c: (UInt8, UInt8, UInt8)) {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            let i = 3 * (y * width + x)
            rgb[i] = c.0
            rgb[i + 1] = c.1
            rgb[i + 2] = c.2
        }
        func ring(_ p: SIMD2<Double>, radius: Int, _ c: (UInt8, UInt8, UInt8)) {
            // Midpoint circle.
            let cx = Int(p.x.rounded()), cy = Int(p.y.rounded())
            var x = radius, y = 0, err = 1 - radius
            while x >= y {
                for (dx, dy) in [(x, y), (y, x), (-y, x), (-x, y), (-x, -y), (-y, -x), (y, -x), (x, -y)] {
                    plot(cx + dx, cy + dy, c)
                }
                y += 1
                if err < 0 {
                    err += 2 * y + 1
                } else {
                    x -= 1
                    err += 2 * (y - x) + 1
                }
            }
        }
        func dot(_ p: SIMD2<Double>, _ c: (UInt8, UInt8, UInt8)) {
            let cx = Int(p.x.rounded()), cy = Int(p.y.rounded())
            for dy in -1...1 { for dx in -1...1 { plot(cx + dx, cy + dy, c) } }
        }
        for k in debug.keypoints { dot(k, (90, 120, 200)) }
        for (p, isInlier) in zip(debug.matched, debug.inlier) where !isInlier { ring(p, radius: 4, (230, 40, 40)) }
        for (p, isInlier) in zip(debug.matched, debug.inlier) where isInlier {
            ring(p, radius: 4, (40, 230, 60))
            dot(p, (200, 255, 200))
        }
        return rgb
    }
}
