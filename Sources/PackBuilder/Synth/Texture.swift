import Foundation

/// A procedural RGB texture (linear values in 0…1), sampled bilinearly.
struct Texture: Sendable {
    let width: Int
    let height: Int
    var pixels: [SIMD3<Float>]
    /// Repeating textures wrap (tiles, wallpaper); others clamp at their edges (posters, signs).
    let repeats: Bool

    /// Texels per drawing unit: the drawing helpers take canvas coordinates and scale them.
    let scale: Double

    /// A texture of `width` × `height` canvas units, stored at `scale` texels per unit.
    init(width: Int, height: Int, scale: Double = 1, repeats: Bool, fill: SIMD3<Float>) {
        self.width = max(4, Int((Double(width) * scale).rounded()))
        self.height = max(4, Int((Double(height) * scale).rounded()))
        self.scale = Double(self.width) / Double(width)
        self.repeats = repeats
        pixels = Array(repeating: fill, count: width * height)
    }

    /// Bilinear sample at texel coordinates (x right, y down), texel centres at +0.5;
    /// repeating textures wrap, others clamp. Scalar arithmetic for the renderer's inner loop.
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

    /// Copies the texels into the flat layout ``sampleScalar(_:_:)`` reads, once; call when drawing is done.
    mutating func freeze() {
        guard channels.isEmpty else { return }
        var c = [Float]()
        c.reserveCapacity(pixels.count * 3)
        for p in pixels {
            c.append(p.x)
            c.append(p.y)
            c.append(p.z)
        }
        channels = c
        pixels = []
    }

    // MARK: Drawing helpers used by the texture factory.

    mutating func fillRect(x0: Int, y0: Int, x1: Int, y1: Int, _ color: SIMD3<Float>) {
        guard x1 > x0, y1 > y0 else { return }
        let s = scale
        let xa = max(0, Int((Double(x0) * s).rounded())), xb = min(width, max(Int((Double(x0) * s).rounded()) + 1, Int((Double(x1) * s).rounded())))
        let ya = max(0, Int((Double(y0) * s).rounded())), yb = min(height, max(Int((Double(y0) * s).rounded()) + 1, Int((Double(y1) * s).rounded())))
        guard xa < xb, ya < yb else { return }
        for y in ya..<yb {
            for x in xa..<xb { pixels[y * width + x] = color }
        }
    }

    /// A filled disc or ring, anti-aliased by 4×4 coverage at the edge.
    mutating func fillCircle(cx: Double, cy: Double, r: Double, inner: Double = 0, _ color: SIMD3<Float>) {
        let (cx, cy, r, inner) = (cx * scale, cy * scale, r * scale, inner * scale)
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
        let (a, b, c) = (a * scale, b * scale, c * scale)
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
    /// A finishing step: drawing after it is not seen.
    mutating func modulate(noise: ValueNoise, amplitude: Float) {
        freeze()
        for y in 0..<height {
            for x in 0..<width {
                let n = Float(noise.value(Double(x) / Double(width), Double(y) / Double(height)))
                let f = 1 + amplitude * (2 * n - 1)
                let i = (y * width + x) * 3
                channels[i] *= f
                channels[i + 1] *= f
                channels[i + 2] *= f
            }
        }
    }

    /// Adds independent per-texel grain in [-amplitude, amplitude]. A finishing step.
    mutating func grain(_ random: inout SeededRandom, amplitude: Float) {
        freeze()
        for i in 0..<(width * height) {
            let g = Float(random.uniform(-1, 1)) * amplitude
            channels[3 * i] += g
            channels[3 * i + 1] += g
            channels[3 * i + 2] += g
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
