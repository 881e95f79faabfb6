import Foundation

/// Makes the procedural textures of a synthetic venue.
///
/// Each texture comes with its physical size in metres (one repeat for
/// repeating textures, the whole item for posters and signs).
struct TextureFactory {
    var random: SeededRandom
    /// Texels across a poster; smaller for tiny test images (same layout, fewer texels).
    let detail: Int

    /// Texels per drawing unit: drawing happens on a fixed canvas scaled by this.
    var scale: Double { Double(detail) / 256 }

    init(seed: UInt64, detail: Int = 256) {
        random = SeededRandom(seed: seed, stream: 7, index: 0)
        self.detail = detail
    }

    private mutating func color(saturation: Double = 0.8, minValue: Double = 0.15, maxValue: Double = 0.95) -> SIMD3<Float> {
        // A random hue at a random value; saturation scales the distance from grey.
        let h = random.unit() * 6, v = random.uniform(minValue, maxValue), s = random.uniform(0, saturation)
        let c = v * s, x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)), m = v - c
        let (r, g, b): (Double, Double, Double)
        switch Int(h) {
        case 0: (r, g, b) = (c, x, 0)
        case 1: (r, g, b) = (x, c, 0)
        case 2: (r, g, b) = (0, c, x)
        case 3: (r, g, b) = (0, x, c)
        case 4: (r, g, b) = (x, 0, c)
        default: (r, g, b) = (c, 0, x)
        }
        return SIMD3(Float(r + m), Float(g + m), Float(b + m))
    }

    /// A poster: a background with random discs, rings, rectangles, triangles,
    /// stripes and blocks of "text", then a little noise. Richly textured.
    mutating func poster(aspect: Double) -> Texture {
        // Shapes are placed on a 256-unit canvas and scaled to `detail` texels,
        // so the random sequence (and thus the venue) does not depend on detail.
        let w = 256, h = max(64, Int(256 / aspect))
        var t = Texture(width: w, height: h, scale: scale, repeats: false, fill: color(saturation: 0.6))
        let shapes = 14 + random.int(26)
        for _ in 0..<shapes {
            let c = color()
            let cx = random.uniform(0, Double(w)), cy = random.uniform(0, Double(h))
            let size = random.uniform(6, 60)
            switch random.int(6) {
            case 0:
                t.fillCircle(cx: cx, cy: cy, r: size / 2, c)
            case 1:
                t.fillCircle(cx: cx, cy: cy, r: size / 2, inner: size / 4, c)
            case 2:
                let x0 = Int(cx), y0 = Int(cy)
                t.fillRect(x0: x0, y0: y0, x1: x0 + Int(random.uniform(4, 70)), y1: y0 + Int(random.uniform(4, 70)), c)
            case 3:
                let p = SIMD2(cx, cy)
                t.fillTriangle(p, p + SIMD2(random.uniform(-50, 50), random.uniform(-50, 50)),
                               p + SIMD2(random.uniform(-50, 50), random.uniform(-50, 50)), c)
            case 4:
                // A block of text-like dashes.
                let rows = 2 + random.int(4)
                for r in 0..<rows {
                    var x = Int(cx)
                    let y = Int(cy) + r * 9
                    while x < Int(cx) + Int(size * 2) {
                        let len = 3 + random.int(9)
                        t.fillRect(x0: x, y0: y, x1: x + len, y1: y + 5, c)
                        x += len + 2 + random.int(3)
                    }
                }
            default:
                // Stripes.
                let n = 3 + random.int(5), gap = Int(random.uniform(3, 9))
                for k in 0..<n {
                    let x0 = Int(cx) + k * gap * 2
                    t.fillRect(x0: x0, y0: Int(cy), x1: x0 + gap, y1: Int(cy) + Int(size), c)
                }
            }
        }
        // A dark frame so the poster edge is a corner-rich outline.
        let frame = SIMD3<Float>(repeating: 0.08)
        t.fillRect(x0: 0, y0: 0, x1: w, y1: 4, frame)
        t.fillRect(x0: 0, y0: h - 4, x1: w, y1: h, frame)
        t.fillRect(x0: 0, y0: 0, x1: 4, y1: h, frame)
        t.fillRect(x0: w - 4, y0: 0, x1: w, y1: h, frame)
        var grainRandom = SeededRandom(seed: random.next())
        t.grain(&grainRandom, amplitude: 0.02)
        return t
    }

    /// A sign: a plain panel with a row of blocky 5×7 glyphs.
    mutating func sign(characters: Int) -> Texture {
        let cell = 24, w = cell * characters + 24, h = 56
        let dark = random.chance(0.5)
        let background = dark ? SIMD3<Float>(0.1, 0.15, 0.35) * Float(random.uniform(0.6, 1.2)) : SIMD3<Float>(0.92, 0.9, 0.85)
        let ink = dark ? SIMD3<Float>(0.95, 0.95, 0.9) : color(saturation: 0.9, maxValue: 0.4)
        var t = Texture(width: w, height: h, scale: scale, repeats: false, fill: background)
        for c in 0..<characters {
            let bits = random.next()
            for gy in 0..<7 {
                for gx in 0..<5 where bits >> UInt64(gy * 5 + gx) & 1 == 1 {
                    let x0 = 12 + c * cell + 2 + gx * 4, y0 = 14 + gy * 4
                    t.fillRect(x0: x0, y0: y0, x1: x0 + 4, y1: y0 + 4, ink)
                }
            }
        }
        return t
    }

    /// Floor tiles: square tiles with grout and a little per-tile variation;
    /// the texture repeats every two tiles (a repeated pattern).
    mutating func tiles() -> Texture {
        let n = 128, half = n / 2
        let base = color(saturation: 0.3, minValue: 0.4, maxValue: 0.85)
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: base)
        for ty in 0..<2 {
            for tx in 0..<2 {
                let shade = base * Float(random.uniform(0.85, 1.1))
                t.fillRect(x0: tx * half + 2, y0: ty * half + 2, x1: tx * half + half - 2, y1: ty * half + half - 2, shade)
            }
        }
        let grout = base * 0.45
        for k in [0, half] {
            t.fillRect(x0: k, y0: 0, x1: k + 2, y1: n, grout)
            t.fillRect(x0: 0, y0: k, x1: n, y1: k + 2, grout)
        }
        let noise = ValueNoise(&random, base: 8, octaves: 3)
        t.modulate(noise: noise, amplitude: 0.12)
        return t
    }

    /// A plain painted wall: one colour with faint large-scale noise (low texture).
    mutating func plainWall() -> Texture {
        let n = 128
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: color(saturation: 0.25, minValue: 0.6, maxValue: 0.9))
        let noise = ValueNoise(&random, base: 4, octaves: 3)
        t.modulate(noise: noise, amplitude: 0.04)
        return t
    }

    /// Wallpaper: one small motif repeated many times (a hard case for matching).
    mutating func wallpaper() -> Texture {
        let n = 64
        let background = color(saturation: 0.4, minValue: 0.5, maxValue: 0.9)
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: background)
        let ink = color(saturation: 0.8, maxValue: 0.5)
        t.fillCircle(cx: 16, cy: 16, r: 9, inner: 5, ink)
        t.fillTriangle(SIMD2(36, 40), SIMD2(60, 40), SIMD2(48, 60), ink)
        t.fillRect(x0: 40, y0: 8, x1: 56, y1: 14, ink)
        return t
    }

    /// Wood planks: stripes with grain noise (floors of rooms, stair treads).
    mutating func wood() -> Texture {
        let n = 128
        let base = SIMD3<Float>(0.55, 0.38, 0.22) * Float(random.uniform(0.7, 1.2))
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: base)
        for k in 0..<4 {
            let y0 = k * 32
            t.fillRect(x0: 0, y0: y0, x1: n, y1: y0 + 32, base * Float(random.uniform(0.8, 1.15)))
            t.fillRect(x0: 0, y0: y0, x1: n, y1: y0 + 1, base * 0.5)
            let joint = random.int(n)
            t.fillRect(x0: joint, y0: y0, x1: joint + 1, y1: y0 + 32, base * 0.5)
        }
        let noise = ValueNoise(&random, base: 16, octaves: 3)
        t.modulate(noise: noise, amplitude: 0.15)
        return t
    }

    /// Carpet: fine random noise with a border pattern.
    mutating func carpet() -> Texture {
        let n = 128
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: color(saturation: 0.5, minValue: 0.25, maxValue: 0.6))
        let noise = ValueNoise(&random, base: 32, octaves: 2)
        t.modulate(noise: noise, amplitude: 0.25)
        return t
    }

    /// A ceiling: near-white, almost featureless.
    mutating func ceiling() -> Texture {
        let n = 64
        var t = Texture(width: n, height: n, scale: scale, repeats: true, fill: SIMD3(repeating: Float(random.uniform(0.85, 0.95))))
        let noise = ValueNoise(&random, base: 4, octaves: 2)
        t.modulate(noise: noise, amplitude: 0.02)
        return t
    }

    /// Cabinet or box faces: a panel with a handle and a border.
    mutating func cabinet() -> Texture {
        let n = 128
        let base = color(saturation: 0.5, minValue: 0.3, maxValue: 0.8)
        var t = Texture(width: n, height: n, scale: scale, repeats: false, fill: base)
        t.fillRect(x0: 0, y0: 0, x1: n, y1: 3, base * 0.5)
        t.fillRect(x0: 0, y0: n - 3, x1: n, y1: n, base * 0.5)
        t.fillRect(x0: 0, y0: 0, x1: 3, y1: n, base * 0.5)
        t.fillRect(x0: n - 3, y0: 0, x1: n, y1: n, base * 0.5)
        t.fillRect(x0: n / 2 - 1, y0: 0, x1: n / 2 + 1, y1: n, base * 0.5)
        t.fillRect(x0: n / 2 - 12, y0: 50, x1: n / 2 - 6, y1: 78, SIMD3(repeating: 0.15))
        t.fillRect(x0: n / 2 + 6, y0: 50, x1: n / 2 + 12, y1: 78, SIMD3(repeating: 0.15))
        return t
    }
}
