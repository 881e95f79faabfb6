import VPSImageIO

/// Image resizing for the scale pyramid.
enum Resize {
    /// Bilinear resampling to `width` x `height`, pixel centres aligned
    /// (`src = (dst + 0.5) * scale - 0.5`), 11-bit fixed-point weights.
    static func bilinear(_ image: GrayImage, width: Int, height: Int) -> GrayImage {
        let sw = image.width, sh = image.height
        let sx = Double(sw) / Double(width), sy = Double(sh) / Double(height)
        var x0 = [Int32](repeating: 0, count: width)
        var wx = [Int32](repeating: 0, count: width)
        for x in 0..<width {
            let f = max(0, (Double(x) + 0.5) * sx - 0.5)
            var i = Int(f)
            var w = Int32(((f - Double(i)) * 2048).rounded())
            if i >= sw - 1 { i = sw - 2; w = 2048 }
            x0[x] = Int32(max(i, 0))
            wx[x] = sw == 1 ? 0 : w
        }
        var out = [UInt8](repeating: 0, count: width * height)
        var row0 = [Int32](repeating: 0, count: width)
        var row1 = [Int32](repeating: 0, count: width)
        var cached0 = -1, cached1 = -1
        image.pixels.withUnsafeBufferPointer { src in
            x0.withUnsafeBufferPointer { x0 in
                wx.withUnsafeBufferPointer { wx in
                    func horizontal(_ y: Int, into row: inout [Int32]) {
                        let base = y * sw
                        row.withUnsafeMutableBufferPointer { r in
                            for x in 0..<width {
                                let i = base + Int(x0[x])
                                let a = Int32(src[i])
                                let b = sw == 1 ? a : Int32(src[i + 1])
                                r[x] = a &* (2048 &- wx[x]) &+ b &* wx[x]
                            }
                        }
                    }
                    out.withUnsafeMutableBufferPointer { dst in
                        for y in 0..<height {
                            let f = max(0, (Double(y) + 0.5) * sy - 0.5)
                            var i = Int(f)
                            var w = Int32(((f - Double(i)) * 2048).rounded())
                            if i >= sh - 1 { i = max(sh - 2, 0); w = sh == 1 ? 0 : 2048 }
                            let j = min(i + 1, sh - 1)
                            if cached0 != i {
                                if cached1 == i { swap(&row0, &row1); cached0 = i; cached1 = -1 } else { horizontal(i, into: &row0); cached0 = i }
                            }
                            if cached1 != j { horizontal(j, into: &row1); cached1 = j }
                            let base = y * width
                            row0.withUnsafeBufferPointer { r0 in
                                row1.withUnsafeBufferPointer { r1 in
                                    for x in 0..<width {
                                        let v = (r0[x] &* (2048 &- w) &+ r1[x] &* w &+ (1 << 21)) >> 22
                                        dst[base + x] = UInt8(truncatingIfNeeded: v)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

/// Separable 7-tap Gaussian (sigma 2) blur, borders reflected, for BRIEF.
enum Smooth {
    // Taps of a sigma-2 Gaussian, scaled to sum to 256.
    static let taps: (Int32, Int32, Int32, Int32) = (18, 34, 49, 54)

    static func gaussian7(_ image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height
        guard w >= 4, h >= 4 else { return image }
        let (k3, k2, k1, k0) = taps
        var tmp = [UInt16](repeating: 0, count: w * h)
        var out = [UInt8](repeating: 0, count: w * h)
        @inline(__always) func reflect(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i) }
        image.pixels.withUnsafeBufferPointer { src in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let r = y * w
                    // Borders with reflection.
                    for x in [0, 1, 2, w - 3, w - 2, w - 1] {
                        var s: Int32 = k0 &* Int32(src[r + x])
                        s &+= k1 &* (Int32(src[r + reflect(x - 1, w)]) &+ Int32(src[r + reflect(x + 1, w)]))
                        s &+= k2 &* (Int32(src[r + reflect(x - 2, w)]) &+ Int32(src[r + reflect(x + 2, w)]))
                        s &+= k3 &* (Int32(src[r + reflect(x - 3, w)]) &+ Int32(src[r + reflect(x + 3, w)]))
                        t[r + x] = UInt16(truncatingIfNeeded: (s &+ 8) >> 4)
                    }
                    let p = src.baseAddress! + r
                    let q = t.baseAddress! + r
                    for x in 3..<(w - 3) {
                        var s = UInt16(54) &* UInt16(p[x])
                        s &+= UInt16(49) &* (UInt16(p[x - 1]) &+ UInt16(p[x + 1]))
                        s &+= UInt16(34) &* (UInt16(p[x - 2]) &+ UInt16(p[x + 2]))
                        s &+= UInt16(18) &* (UInt16(p[x - 3]) &+ UInt16(p[x + 3]))
                        q[x] = (s &+ 8) >> 4
                    }
                }
            }
        }
        // Vertical pass: tmp holds values scaled by 16; the total scale is 256 * 16.
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let rows = (-3...3).map { reflect(y + $0, h) * w }
                    let r0 = t.baseAddress! + rows[3]
                    let m1 = t.baseAddress! + rows[2], p1 = t.baseAddress! + rows[4]
                    let m2 = t.baseAddress! + rows[1], p2 = t.baseAddress! + rows[5]
                    let m3 = t.baseAddress! + rows[0], p3 = t.baseAddress! + rows[6]
                    let d = o.baseAddress! + y * w
                    for x in 0..<w {
                        var s = UInt32(54) &* UInt32(r0[x])
                        s &+= UInt32(49) &* (UInt32(m1[x]) &+ UInt32(p1[x]))
                        s &+= UInt32(34) &* (UInt32(m2[x]) &+ UInt32(p2[x]))
                        s &+= UInt32(18) &* (UInt32(m3[x]) &+ UInt32(p3[x]))
                        d[x] = UInt8(truncatingIfNeeded: (s &+ 2048) >> 12)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
