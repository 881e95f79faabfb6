import Foundation
@testable import Localizer
import VPSImageIO

/// Deterministic pseudo-random numbers (SplitMix64) for test inputs.
struct TestRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
    mutating func descriptor() -> BinaryDescriptor { SIMD4(next(), next(), next(), next()) }
}

/// Synthetic test scenes.
enum TestScenes {
    /// A textured scene: shaded background, random rectangles, discs and triangles
    /// of random gray levels, lightly blurred: many corners of many contrasts.
    static func textured(width: Int, height: Int, seed: UInt64 = 1, shapes: Int? = nil) -> GrayImage {
        var rng = TestRandom(seed: seed)
        var img = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                img[y * width + x] = 90 + 60 * Float(sin(Double(x) * 0.013 + 1) * cos(Double(y) * 0.017))
            }
        }
        let n = shapes ?? (width * height / 1500)
        let scale = Double(min(width, height))
        for _ in 0..<n {
            let gray = Float(rng.int(0...255))
            let cx = rng.uniform() * Double(width), cy = rng.uniform() * Double(height)
            let size = (0.01 + 0.06 * rng.uniform()) * scale
            let kind = rng.int(0...2)
            let angle = rng.uniform() * .pi
            let (ca, sa) = (cos(angle), sin(angle))
            let x0 = max(0, Int(cx - 1.5 * size)), x1 = min(width - 1, Int(cx + 1.5 * size))
            let y0 = max(0, Int(cy - 1.5 * size)), y1 = min(height - 1, Int(cy + 1.5 * size))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    let dx = Double(x) - cx, dy = Double(y) - cy
                    let u = dx * ca + dy * sa, v = -dx * sa + dy * ca
                    let inside: Bool
                    switch kind {
                    case 0: inside = abs(u) < size && abs(v) < 0.6 * size
                    case 1: inside = u * u + v * v < size * size
                    default: inside = v > -0.5 * size && v < size - abs(u) * 1.5
                    }
                    if inside { img[y * width + x] = gray }
                }
            }
        }
        // 3x3 box blur to soften the staircase edges.
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var s: Float = 0
                for dy in -1...1 {
                    for dx in -1...1 {
                        let xx = min(max(x + dx, 0), width - 1), yy = min(max(y + dy, 0), height - 1)
                        s += img[yy * width + xx]
                    }
                }
                out[y * width + x] = UInt8(max(0, min(255, (s / 9).rounded())))
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// Resamples `image` under the similarity `p' = s R(theta) (p - c) + c'` (c the
    /// source centre, c' the destination centre), bilinear, 0 outside.
    /// Returns the image and the forward map from source to destination pixels.
    static func warp(_ image: GrayImage, degrees: Double, scale: Double) -> (GrayImage, (Double, Double) -> (Double, Double)) {
        let w = Int((Double(image.width) * scale).rounded()), h = Int((Double(image.height) * scale).rounded())
        let side = degrees.truncatingRemainder(dividingBy: 180) == 90
        let (ow, oh) = side ? (h, w) : (w, h)
        let t = degrees * .pi / 180
        let (c, s) = (cos(t), sin(t))
        let scx = Double(image.width - 1) / 2, scy = Double(image.height - 1) / 2
        let dcx = Double(ow - 1) / 2, dcy = Double(oh - 1) / 2
        var out = [UInt8](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            for x in 0..<ow {
                // Inverse map: destination to source.
                let dx = (Double(x) - dcx) / scale, dy = (Double(y) - dcy) / scale
                let sx = c * dx + s * dy + scx, sy = -s * dx + c * dy + scy
                let ix = Int(sx.rounded(.down)), iy = Int(sy.rounded(.down))
                guard ix >= 0, iy >= 0, ix + 1 < image.width, iy + 1 < image.height else {
                    if abs(sx - sx.rounded()) < 1e-9, abs(sy - sy.rounded()) < 1e-9,
                       let px = Int(exactly: sx.rounded()), let py = Int(exactly: sy.rounded()),
                       px >= 0, py >= 0, px < image.width, py < image.height {
                        out[y * ow + x] = image[px, py]
                    }
                    continue
                }
                let fx = sx - Double(ix), fy = sy - Double(iy)
                let a = Double(image[ix, iy]), b = Double(image[ix + 1, iy])
                let cc = Double(image[ix, iy + 1]), d = Double(image[ix + 1, iy + 1])
                let v = (a * (1 - fx) + b * fx) * (1 - fy) + (cc * (1 - fx) + d * fx) * fy
                out[y * ow + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        let forward: (Double, Double) -> (Double, Double) = { x, y in
            let dx = x - scx, dy = y - scy
            return (scale * (c * dx - s * dy) + dcx, scale * (s * dx + c * dy) + dcy)
        }
        return (GrayImage(width: ow, height: oh, pixels: out), forward)
    }
}
