import VPSImageIO
import Foundation

/// Harris corner response over a 7x7 block of 3x3 Sobel gradients.
enum Harris {
    static let k: Float = 0.04

    /// The response at (x, y); needs 4 pixels of margin.
    @inline(__always)
    static func response(_ p: UnsafePointer<UInt8>, stride w: Int, x: Int, y: Int) -> Float {
        var a: Int64 = 0, b: Int64 = 0, c: Int64 = 0
        for dy in -3...3 {
            let row = p + (y + dy) * w + x
            for dx in -3...3 {
                let q = row + dx
                let tl = Int32(q[-w - 1]), tc = Int32(q[-w]), tr = Int32(q[-w + 1])
                let ml = Int32(q[-1]), mr = Int32(q[1])
                let bl = Int32(q[w - 1]), bc = Int32(q[w]), br = Int32(q[w + 1])
                let ix = (tr &+ 2 &* mr &+ br) &- (tl &+ 2 &* ml &+ bl)
                let iy = (bl &+ 2 &* bc &+ br) &- (tl &+ 2 &* tc &+ tr)
                a &+= Int64(ix &* ix)
                b &+= Int64(iy &* iy)
                c &+= Int64(ix &* iy)
            }
        }
        // Normalise as OpenCV does: gradients scaled by 1 / (4 * 7 * 255).
        let scale = 1.0 / (4.0 * 7.0 * 255.0)
        let fa = Double(a) * scale * scale, fb = Double(b) * scale * scale, fc = Double(c) * scale * scale
        return Float(fa * fb - fc * fc - Double(k) * (fa + fb) * (fa + fb))
    }
}

/// Intensity-centroid orientation over a disc of radius 15.
enum Orientation {
    static let radius = 15
    /// Half-width of the disc on each row offset 0...radius.
    static let halfWidths: [Int] = (0...radius).map { v in
        Int((Double(radius * radius - v * v) + 0.25).squareRoot().rounded(.down))
    }

    /// The angle in radians of the intensity centroid, from +x towards +y.
    @inline(__always)
    static func angle(_ p: UnsafePointer<UInt8>, stride w: Int, x: Int, y: Int, halfWidths hw: UnsafeBufferPointer<Int>) -> Float {
        let center = p + y * w + x
        var m10: Int32 = 0, m01: Int32 = 0
        for u in -radius...radius { m10 &+= Int32(u) &* Int32(center[u]) }
        for v in 1...radius {
            let up = center - v * w, down = center + v * w
            let d = hw[v]
            var vsum: Int32 = 0
            for u in -d...d {
                let a = Int32(down[u]), b = Int32(up[u])
                vsum &+= a &- b
                m10 &+= Int32(u) &* (a &+ b)
            }
            m01 &+= Int32(v) &* vsum
        }
        return atan2f(Float(m01), Float(m10))
    }
}

/// Steered BRIEF: 256 intensity comparisons between point pairs of a fixed
/// pattern, rotated by the keypoint's orientation, on a smoothed image.
///
/// The pattern is generated here, deterministically: 1024 candidate pairs of
/// points drawn from an isotropic Gaussian (sigma = 31/5, as in the BRIEF
/// paper's best variant) with SplitMix64 and Box-Muller, kept inside a disc of
/// radius 13 so that any rotation stays inside the 31x31 patch, and at least
/// 2 pixels apart. Steering makes many such tests biased and correlated, so
/// 256 of them are selected as ORB does for rBRIEF: the least biased first,
/// skipping tests correlated with those already taken (``BRIEFLearning``; the
/// selection below is its output on the training images named in
/// docs/features.md).
enum BRIEF {
    static let radius: Float = 13
    static let seed: UInt64 = 0x5650_5350_4143_4B31 // "VPSPACK1"

    /// How many candidate tests are generated; ``selection`` picks 256 of them.
    static let candidateCount = 1024

    /// The candidate tests as 4 arrays: x1, y1, x2, y2 (whole pixels).
    static let candidates: (x1: [Float], y1: [Float], x2: [Float], y2: [Float]) = {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }
        let sigma = 31.0 / 5.0
        func point() -> (Float, Float) {
            while true {
                let r = (-2 * log(uniform())).squareRoot() * sigma
                let t = 2 * Double.pi * uniform()
                let x = Float((r * cos(t)).rounded()), y = Float((r * sin(t)).rounded())
                if x * x + y * y <= radius * radius { return (x, y) }
            }
        }
        var x1: [Float] = [], y1: [Float] = [], x2: [Float] = [], y2: [Float] = []
        while x1.count < candidateCount {
            let a = point(), b = point()
            let dx = a.0 - b.0, dy = a.1 - b.1
            if dx * dx + dy * dy < 4 { continue }
            x1.append(a.0); y1.append(a.1); x2.append(b.0); y2.append(b.1)
        }
        return (x1, y1, x2, y2)
    }()

    /// The pattern: the selected candidate tests, in selection order.
    static let pattern: (x1: [Float], y1: [Float], x2: [Float], y2: [Float]) = (
        selection.map { candidates.x1[Int($0)] }, selection.map { candidates.y1[Int($0)] },
        selection.map { candidates.x2[Int($0)] }, selection.map { candidates.y2[Int($0)] }
    )

    /// The pattern as integers (its coordinates are whole pixels), for fixed-point rotation.
    static let integerPattern: [Int32] = (0..<256).flatMap { i in
        [Int32(pattern.x1[i]), Int32(pattern.y1[i]), Int32(pattern.x2[i]), Int32(pattern.y2[i])]
    }

    /// Computes the descriptor at (x, y) of `smoothed`, rotated by `angle` radians.
    /// `pattern` is ``integerPattern``; `offsets` is scratch space for 512 Int32.
    @inline(__always)
    static func describe(_ p: UnsafePointer<UInt8>, stride w: Int, x: Int, y: Int, angle: Float,
                         pattern: UnsafeBufferPointer<Int32>, offsets: UnsafeMutableBufferPointer<Int32>) -> BinaryDescriptor {
        // Rotation in 12-bit fixed point, rounded to the nearest pixel.
        let c = Int32((cosf(angle) * 4096).rounded()), s = Int32((sinf(angle) * 4096).rounded())
        let w32 = Int32(w)
        for i in 0..<256 {
            let x1 = pattern[4 * i], y1 = pattern[4 * i + 1], x2 = pattern[4 * i + 2], y2 = pattern[4 * i + 3]
            let ax = (x1 &* c &- y1 &* s &+ 2048) >> 12, ay = (x1 &* s &+ y1 &* c &+ 2048) >> 12
            let bx = (x2 &* c &- y2 &* s &+ 2048) >> 12, by = (x2 &* s &+ y2 &* c &+ 2048) >> 12
            offsets[2 * i] = ay &* w32 &+ ax
            offsets[2 * i + 1] = by &* w32 &+ bx
        }
        let center = p + y * w + x
        var lanes = SIMD4<UInt64>(repeating: 0)
        for lane in 0..<4 {
            var word: UInt64 = 0
            for bit in 0..<64 {
                let i = lane * 64 + bit
                let a = center[Int(offsets[2 * i])], b = center[Int(offsets[2 * i + 1])]
                word |= (a < b ? 1 : 0) << UInt64(bit)
            }
            lanes[lane] = word
        }
        return lanes
    }
}
