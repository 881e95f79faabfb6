import Foundation

/// A procedural RGB texture (linear values in 0…1), sampled bilinearly.
struct Texture: Sendable {
    let width: Int
    let height: Int
    var pixels: [SIMD3<Float>]
    /// Repeating textures wrap (tiles, wallpaper); others clamp at their edges (posters, signs).
    let repeats: Bool

    init(width: Int, height: Int, repeats: Bool, fill: SIMD3<Float>) {
        self.width = width
        self.height = height
        self.repeats = repeats
        pixels = Array(repeating: fill, count: width * height)
    }

    /// Bilinear sample at texel coordinates (x right, y down), texel centres at +0.5.
    @inline(__always)
    func sample(_ tx: Double, _ ty: Double) -> SIMD3<Float> {
        let fx = tx - 0.5, fy = ty - 0.5
        let x0f = fx.rounded(.down), y0f = fy.rounded(.down)
        let ax = Float(fx - x0f), ay = Float(fy - y0f)
        var x0 = Int(x0f), y0 = Int(y0f)
        var x1 = x0 + 1, y1 = y0 + 1
        if repeats {
            x0 = ((x0 % width) + width) % width
            y0 = ((y0 % height) + height) % height
            x1 = x0 + 1 == width ? 0 : x0 + 1
            y1 = y0 + 1 == height ? 0 : y0 + 1
        } else {
            x0 = min(max(x0, 0), width - 1)
            x1 = min(max(x1, 0), width - 1)
            y0 = min(max(y0, 0), height - 1)
            y1 = min(max(y1, 0), height - 1)
        }
        return pixels.withUnsafeBufferPointer { p in
            let a = p[y0 * width + x0], b = p[y0 * width + x1]
            let c = p[y1 * width + x0], d = p[y1 * width + x1]
            let top = a + (b - a) * ax
            let bottom = c + (d - c) * ax
            return top + (bottom - top) * ay
        }
    }

    /// ``sample(_:_:)`` with scalar arithmetic, for the renderer's inner loop.
    @inline(__always)
    func sampleScalar(_ tx: Double, _ ty: Double) -> (Float, Float, Float) {
        let fx = tx - 0.5, fy = ty - 0.5
        let x0f = fx.rounded(.down), y0f = fy.rounded(.down)
        let ax = Float(fx - x0f), ay = Float(fy - y0f)
        var x0 = Int(x0f), y0 = Int(y0f)
        var x1 = x0 + 1, y1 = y0 + 1
        if repeats {
            x0 %= width
            if x0 < 0 { x0 += width }
            y0 %= height
            if y0 < 0 { y0 += height }
            x1 = x0 + 1 == width ? 0 : x0 + 1
            y1 = y0 + 1 == height ? 0 : y0 + 1
        } else {
            x0 = Swift.min(Swift.max(x0, 0), width - 1)
            x1 = Swift.min(Swift.max(x1, 0), width - 1)
            y0 = Swift.min(Swift.max(y0, 0), height - 1)
            y1 = Swift.min(Swift.max(y1, 0), height - 1)
        }
        return channels.withUnsafeBufferPointer { p in
            let a = (y0 * width + x0) * 3, b = (y0 * width + x1) * 3
            let c = (y1 * width + x0) * 3, d = (y1 * width + x1) * 3
            let wa = (1 - ax) * (1 - ay), wb = ax * (1 - ay), wc = (1 - ax) * ay, wd = ax * ay
            return (p[a] * wa + p[b] * wb + p[c] * wc + p[d] * wd,
                    p[a + 1] * wa + p[b + 1] * wb + p[c + 1] * wc + p[d + 1] * wd,
                    p[a + 2] * wa + p[b + 2] * wb + p[c + 2] * wc + p[d + 2] * wd)
        }
    }

    /// The texels as interleaved RGB floats; filled by ``freeze()``.
    private(set) var channels: [Float] = []

    /// Copies the texels into the flat layout ``sampleScalar(_:_:)`` reads; call when drawing is done.
    mutating func freeze() {
        channels = pixels.flatMap { [$0.x, $0.y, $0.z] }
    }

    // MARK: Drawing helpers used by the texture factory.

    mutating func fillRect(x0: Int, y0: Int, x1: Int, y1: Int, _ color: SIMD3<Float>) {
        let xa = max(0, x0), xb = min(width, x1), ya = max(0, y0), yb = min(height, y1)
        guard xa < xb, ya < yb else { return }
        for y in ya..<yb {
            for x in xa..<xb { pixels[y * width + x] = color }
        }
    }

    /// A filled disc or ring, anti-aliased by 4×4 coverage at the edge.
    mutating func fillCircle(cx: Double, cy: Double, r: Double, inner: Double = 0, _ color: SIMD3<Float>) {
        let xa = max(0, Int(cx - r - 1)), xb = min(width - 1, Int(cx + r + 1))
        let ya = max(0, Int(cy - r - 1)), yb = min(height - 1, Int(cy + r + 1))
        guard xa <= xb, ya <= yb else { return }
        for y in ya...yb {
            for x in xa...xb {
                var hits = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let dx = Double(x) + (Double(sx) + 0.5) / 4 - cx
                        let dy = Double(y) + (Double(sy) + 0.5) / 4 - cy
                        let d2 = dx * dx + dy * dy
                        if d2 <= r * r && d2 >= inner * inner { hits += 1 }
                    }
                }
                blend(x, y, color, Float(hits) / 16)
            }
        }
    }

    /// A filled triangle, anti-aliased by 4×4 coverage.
    mutating func fillTriangle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ color: SIMD3<Float>) {
        let xa = max(0, Int(min(a.x, b.x, c.x))), xb = min(width - 1, Int(max(a.x, b.x, c.x)) + 1)
        let ya = max(0, Int(min(a.y, b.y, c.y))), yb = min(height - 1, Int(max(a.y, b.y, c.y)) + 1)
        guard xa <= xb, ya <= yb else { return }
        func edge(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Double {
            (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        let area = edge(a, b, c)
        guard abs(area) > 1e-9 else { return }
        for y in ya...yb {
            for x in xa...xb {
                var hits = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let p = SIMD2(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4)
                        let w0 = edge(b, c, p) / area, w1 = edge(c, a, p) / area, w2 = edge(a, b, p) / area
                        if w0 >= 0 && w1 >= 0 && w2 >= 0 { hits += 1 }
                    }
                }
                blend(x, y, color, Float(hits) / 16)
            }
        }
    }

    @inline(__always)
    mutating func blend(_ x: Int, _ y: Int, _ color: SIMD3<Float>, _ alpha: Float) {
        guard alpha > 0 else { return }
        let i = y * width + x
        pixels[i] = pixels[i] + (color - pixels[i]) * alpha
    }

    /// Multiplies every texel by (1 + amplitude × noise) where noise is tileable value noise.
    mutating func modulate(noise: ValueNoise, amplitude: Float) {
        for y in 0..<height {
            for x in 0..<width {
                let n = Float(noise.value(Double(x) / Double(width), Double(y) / Double(height)))
                pixels[y * width + x] *= 1 + amplitude * (2 * n - 1)
            }
        }
    }

    /// Adds independent per-texel grain in [-amplitude, amplitude].
    mutating func grain(_ random: inout SeededRandom, amplitude: Float) {
        for i in pixels.indices {
            let g = Float(random.uniform(-1, 1)) * amplitude
            pixels[i] = pixels[i] + SIMD3(repeating: g)
        }
    }
}

/// Tileable fractal value noise on the unit square (wraps at 0 and 1).
struct ValueNoise: Sendable {
    private var lattices: [(size: Int, values: [Double], weight: Double)] = []

    /// - Parameters:
    ///   - base: lattice cells along each side for the first octave.
    ///   - octaves: each octave doubles the lattice and halves the weight.
    init(_ random: inout SeededRandom, base: Int, octaves: Int) {
        var size = base, weight = 1.0, total = 0.0
        for _ in 0..<octaves {
            let values = (0..<(size * size)).map { _ in random.unit() }
            lattices.append((size, values, weight))
            total += weight
            size *= 2
            weight *= 0.5
        }
        lattices = lattices.map { ($0.size, $0.values, $0.weight / total) }
    }

    /// Noise in [0, 1] at (u, v) in the unit square.
    func value(_ u: Double, _ v: Double) -> Double {
        var sum = 0.0
        for lattice in lattices {
            let n = lattice.size
            let x = u * Double(n), y = v * Double(n)
            let xf = x.rounded(.down), yf = y.rounded(.down)
            let tx = x - xf, ty = y - yf
            let sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty)
            let x0 = ((Int(xf) % n) + n) % n, y0 = ((Int(yf) % n) + n) % n
            let x1 = (x0 + 1) % n, y1 = (y0 + 1) % n
            let a = lattice.values[y0 * n + x0], b = lattice.values[y0 * n + x1]
            let c = lattice.values[y1 * n + x0], d = lattice.values[y1 * n + x1]
            let top = a + (b - a) * sx, bottom = c + (d - c) * sx
            sum += lattice.weight * (top + (bottom - top) * sy)
        }
        return sum
    }
}
