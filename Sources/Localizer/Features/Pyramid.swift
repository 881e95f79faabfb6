import VPSImageIO

/// Image resizing for the scale pyramid.
enum Resize {
    /// Bilinear resampling to `width` x `height`, pixel centres aligned
    /// (`src = (dst + 0.5) * scale - 0.5`), 7-bit fixed-point weights: each output
    /// pixel is `(Σ wy·wx·p + 8192) >> 14` over its 2 x 2 source pixels.
    ///
    /// Output rows are made in pairs. For each pair, both rows' vertical blends
    /// (16-bit lanes, vectorised) are stored side by side in the halves of 64-bit
    /// words over the full source width. The horizontal step then reads two words
    /// per output column and interpolates both rows with one multiply-add: neither
    /// half's sum (below 2^22) carries into the other.
    static func bilinear(_ image: GrayImage, width: Int, height: Int) -> GrayImage {
        let sw = image.width, sh = image.height
        guard width > 0, height > 0, sw > 0, sh > 0 else { return GrayImage(width: max(width, 0), height: max(height, 0)) }
        // Source column and weight (0...128) of each output column.
        func taps(_ n: Int, _ sourceCount: Int) -> ([Int], [UInt32]) {
            let ratio = Double(sourceCount) / Double(n)
            var index = [Int](repeating: 0, count: n), weight = [UInt32](repeating: 0, count: n)
            for i in 0..<n {
                let f = max(0, (Double(i) + 0.5) * ratio - 0.5)
                var j = Int(f)
                var w = UInt32(((f - Double(j)) * 128).rounded())
                if w == 128 { j += 1; w = 0 }
                if j >= sourceCount - 1 { j = max(sourceCount - 2, 0); w = sourceCount == 1 ? 0 : 128 }
                index[i] = j
                weight[i] = w
            }
            return (index, weight)
        }
        let (xs, wxs) = taps(width, sw)
        let (ys, wys) = taps(height, sh)
        let columns = (0..<width).map { ColumnTap(index: xs[$0], left: UInt64(128 - wxs[$0]), right: UInt64(wxs[$0])) }
        let pairs = UnsafeMutablePointer<UInt64>.allocate(capacity: sw + 1)
        let spare = UnsafeMutablePointer<UInt8>.allocate(capacity: width) // the second row of an odd last pair
        defer {
            pairs.deallocate()
            spare.deallocate()
        }
        pairs[sw] = 0
        let out = [UInt8](unsafeUninitializedCapacity: width * height) { dst, initialized in
            image.pixels.withUnsafeBufferPointer { src in
                columns.withUnsafeBufferPointer { columns in
                    let s = src.baseAddress!
                    for y in stride(from: 0, to: height, by: 2) {
                        let y1 = min(y + 1, height - 1)
                        let a0 = s + ys[y] &* sw, a1 = s + min(ys[y] + 1, sh - 1) &* sw
                        let b0 = s + ys[y1] &* sw, b1 = s + min(ys[y1] + 1, sh - 1) &* sw
                        let wa = UInt16(wys[y]), wa0 = 128 &- wa, wb = UInt16(wys[y1]), wb0 = 128 &- wb
                        // 16 columns at a time, then the rest one by one.
                        let va0 = SIMD16<UInt16>(repeating: wa0), va = SIMD16<UInt16>(repeating: wa)
                        let vb0 = SIMD16<UInt16>(repeating: wb0), vb = SIMD16<UInt16>(repeating: wb)
                        var x = 0
                        while x + 16 <= sw {
                            @inline(__always) func load(_ row: UnsafePointer<UInt8>) -> SIMD16<UInt16> {
                                widen(UnsafeRawPointer(row + x).loadUnaligned(as: SIMD16<UInt8>.self))
                            }
                            let a = load(a0) &* va0 &+ load(a1) &* va
                            let b = load(b0) &* vb0 &+ load(b1) &* vb
                            let target = UnsafeMutableRawPointer(pairs + x)
                            target.storeBytes(of: interleave(a.lowHalf, b.lowHalf), as: SIMD16<UInt32>.self)
                            target.storeBytes(of: interleave(a.highHalf, b.highHalf), toByteOffset: 64, as: SIMD16<UInt32>.self)
                            x += 16
                        }
                        while x < sw {
                            let a = UInt16(a0[x]) &* wa0 &+ UInt16(a1[x]) &* wa
                            let b = UInt16(b0[x]) &* wb0 &+ UInt16(b1[x]) &* wb
                            pairs[x] = UInt64(a) | UInt64(b) << 32
                            x += 1
                        }
                        let da = dst.baseAddress! + y &* width
                        let db = y + 1 < height ? dst.baseAddress! + (y + 1) &* width : spare
                        for x in 0..<width {
                            let c = columns[x]
                            let v = pairs[c.index] &* c.left &+ pairs[c.index &+ 1] &* c.right &+ 0x0000_2000_0000_2000
                            da[x] = UInt8(truncatingIfNeeded: v >> 14)
                            db[x] = UInt8(truncatingIfNeeded: v >> 46)
                        }
                    }
                }
            }
            initialized = width * height
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}

/// One output column of a bilinear resize: its left source column and the weights (summing to
/// 128) of that column and the next.
struct ColumnTap {
    var index: Int
    var left: UInt64
    var right: UInt64
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
                        t[r + x] = UInt16(truncatingIfNeeded: (s &+ 128) >> 8)
                    }
                    let p = src.baseAddress! + r
                    let q = t.baseAddress! + r
                    for x in 3..<(w - 3) {
                        var s = UInt16(54) &* UInt16(p[x])
                        s &+= UInt16(49) &* (UInt16(p[x - 1]) &+ UInt16(p[x + 1]))
                        s &+= UInt16(34) &* (UInt16(p[x - 2]) &+ UInt16(p[x + 2]))
                        s &+= UInt16(18) &* (UInt16(p[x - 3]) &+ UInt16(p[x + 3]))
                        q[x] = (s &+ 128) >> 8
                    }
                }
            }
        }
        // Vertical pass over 8-bit values kept in 16-bit lanes: sums stay below 65536.
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
                        var s = UInt16(54) &* r0[x]
                        s &+= UInt16(49) &* (m1[x] &+ p1[x])
                        s &+= UInt16(34) &* (m2[x] &+ p2[x])
                        s &+= UInt16(18) &* (m3[x] &+ p3[x])
                        d[x] = UInt8(truncatingIfNeeded: (s &+ 128) >> 8)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}

extension Smooth {
    /// How far from its centre a ``window(_:stride:x:y:into:)`` reaches: BRIEF's pattern radius.
    static let windowRadius = 13
    /// The row length of a window buffer.
    static let windowStride = 32
    /// The bytes a window buffer needs: 27 rows of ``windowStride``.
    static let windowBytes = (2 * windowRadius + 1) * windowStride

    /// The pixels of ``gaussian7(_:)`` within ``windowRadius`` of (x, y), computed only there:
    /// row `v`, column `u` of `out` (u, v in 0...26, row length ``windowStride``) is the blurred
    /// pixel (x - 13 + u, y - 13 + v) of the `w` x `h` image at `p`. (x, y) must lie 16 pixels
    /// inside the image, so that no tap reaches a border (where `gaussian7` reflects).
    ///
    /// Describing only the kept keypoints, this costs a fraction of blurring whole levels.
    static func window(_ p: UnsafePointer<UInt8>, width w: Int, height h: Int, x: Int, y: Int, into out: UnsafeMutablePointer<UInt8>) {
        let r = windowRadius
        precondition(x >= r + 3 && y >= r + 3 && x + r + 3 < w && y + r + 3 < h, "Smooth.window: (\(x), \(y)) too close to the border of \(w)x\(h)")
        // Two 16-column blocks, at window columns 0...15 and 11...26.
        let blockOffsets = (0, 2 * r + 1 - 16)
        // The horizontal pass over the 33 rows the vertical taps reach, rounded to 8 bits as in gaussian7.
        let k0 = SIMD16<UInt16>(repeating: 54), k1 = SIMD16<UInt16>(repeating: 49)
        let k2 = SIMD16<UInt16>(repeating: 34), k3 = SIMD16<UInt16>(repeating: 18)
        let half = SIMD16<UInt16>(repeating: 128)
        withUnsafeTemporaryAllocation(of: SIMD16<UInt16>.self, capacity: 2 * (2 * r + 7)) { t in
            for i in 0..<(2 * r + 7) {
                let line = p + (y - r - 3 + i) * w + (x - r)
                for block in 0..<2 {
                    let q = line + (block == 0 ? blockOffsets.0 : blockOffsets.1)
                    @inline(__always) func load(_ dx: Int) -> SIMD16<UInt16> {
                        widen(UnsafeRawPointer(q + dx).loadUnaligned(as: SIMD16<UInt8>.self))
                    }
                    var s = k0 &* load(0)
                    s &+= k1 &* (load(-1) &+ load(1))
                    s &+= k2 &* (load(-2) &+ load(2))
                    s &+= k3 &* (load(-3) &+ load(3))
                    (t.baseAddress! + 2 * i + block).initialize(to: (s &+ half) &>> 8)
                }
            }
            for v in 0..<(2 * r + 1) {
                for block in 0..<2 {
                    @inline(__always) func row(_ dy: Int) -> SIMD16<UInt16> { t[2 * (v + 3 + dy) + block] }
                    var s = k0 &* row(0)
                    s &+= k1 &* (row(-1) &+ row(1))
                    s &+= k2 &* (row(-2) &+ row(2))
                    s &+= k3 &* (row(-3) &+ row(3))
                    let bytes = narrow((s &+ half) &>> 8)
                    UnsafeMutableRawPointer(out + v * windowStride + (block == 0 ? blockOffsets.0 : blockOffsets.1))
                        .storeBytes(of: bytes, as: SIMD16<UInt8>.self)
                }
            }
        }
    }
}

/// The 16 bytes as 16-bit lanes (written out: the generic conversion is not always inlined).
@inline(__always)
func widen(_ v: SIMD16<UInt8>) -> SIMD16<UInt16> {
    var r = SIMD16<UInt16>()
    for i in 0..<16 { r[i] = UInt16(v[i]) }
    return r
}

/// The low bytes of 16-bit lanes.
@inline(__always)
func narrow(_ v: SIMD16<UInt16>) -> SIMD16<UInt8> {
    var r = SIMD16<UInt8>()
    for i in 0..<16 { r[i] = UInt8(truncatingIfNeeded: v[i]) }
    return r
}

/// `a[0], b[0], a[1], b[1], ...` as 32-bit lanes.
@inline(__always)
func interleave(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD16<UInt32> {
    var r = SIMD16<UInt32>()
    for i in 0..<8 {
        r[2 * i] = UInt32(a[i])
        r[2 * i + 1] = UInt32(b[i])
    }
    return r
}
