import VPSImageIO

/// A FAST corner on one pyramid level, with its corner score.
struct Corner {
    var x: Int32
    var y: Int32
    var score: Int32
}

/// FAST-9 (9 contiguous pixels of the 16 on a radius-3 circle all brighter than
/// centre + t or all darker than centre - t) with 3x3 non-maximum suppression.
///
/// Rows are scanned 16 pixels at a time with SIMD: the four compass pixels
/// reject most positions (a 9-arc always covers two neighbouring compass
/// pixels); survivors get the full 16-pixel test. The score is the sum of
/// absolute differences minus `t` over the brighter (or darker) circle pixels,
/// whichever is larger (Rosten and Drummond's SAD score).
enum FAST {

    /// The circle, in order, as (dx, dy).
    static let circle: [(Int, Int)] = [
        (0, -3), (1, -3), (2, -2), (3, -1), (3, 0), (3, 1), (2, 2), (1, 3),
        (0, 3), (-1, 3), (-2, 2), (-3, 1), (-3, 0), (-3, -1), (-2, -2), (-1, -3),
    ]

    /// True when the 16-bit circular mask has a run of at least 9 set bits.
    @inline(__always)
    static func hasArc9(_ mask: UInt32) -> Bool {
        var m = mask | (mask << 16)
        m &= m >> 1 // runs of 2
        m &= m >> 2 // runs of 4
        m &= m >> 4 // runs of 8
        m &= m >> 1 // runs of 9
        return m != 0
    }

    /// Corners in the rectangle `[border, width - border) x [border, height - border)`, after
    /// non-maximum suppression over 3x3 neighbourhoods, in raster order.
    static func detect(_ image: GrayImage, threshold: Int, border: Int) -> [Corner] {
        let w = image.width, h = image.height
        let b = max(border, 8) // SIMD loads overshoot a row by up to 18 bytes; 8 rows keep them inside
        guard w - 2 * b >= 1, h - 2 * b >= 1 else { return [] }
        let t = UInt8(clamping: max(threshold, 1))
        var result: [Corner] = []
        // Three rows of scores (a ring buffer) and the columns of each row's corners.
        let scores = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * w)
        scores.initialize(repeating: 0, count: 3 * w)
        let columns = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * w)
        var counts = (0, 0, 0)
        defer {
            scores.deallocate()
            columns.deallocate()
        }
        func count(_ slot: Int) -> Int { slot == 0 ? counts.0 : (slot == 1 ? counts.1 : counts.2) }
        func setCount(_ slot: Int, _ n: Int) {
            if slot == 0 { counts.0 = n } else if slot == 1 { counts.1 = n } else { counts.2 = n }
        }
        func suppress(_ y: Int) {
            let slot = y % 3
            let prev = scores + ((y + 2) % 3) * w, cur = scores + slot * w, next = scores + ((y + 1) % 3) * w
            let cols = columns + slot * w
            for k in 0..<count(slot) {
                let x = Int(cols[k])
                let s = cur[x]
                // Strictly greater than the neighbours before it in raster order, at least equal to those after.
                if s > prev[x - 1], s > prev[x], s > prev[x + 1], s > cur[x - 1],
                   s >= cur[x + 1], s >= next[x - 1], s >= next[x], s >= next[x + 1] {
                    result.append(Corner(x: Int32(x), y: Int32(y), score: s))
                }
            }
        }
        func clear(_ slot: Int) {
            let row = scores + slot * w, cols = columns + slot * w
            for k in 0..<count(slot) { row[Int(cols[k])] = 0 }
            setCount(slot, 0)
        }

        image.pixels.withUnsafeBufferPointer { src in
            let base = src.baseAddress!
            let tv = SIMD16<UInt8>(repeating: t)
            let cap = SIMD16<UInt8>(repeating: 255 &- t)
            let o = circle.map { $0.1 * w + $0.0 }
            let (o0, o1, o2, o3, o4, o5, o6, o7) = (o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7])
            let (o8, o9, o10, o11, o12, o13, o14, o15) = (o[8], o[9], o[10], o[11], o[12], o[13], o[14], o[15])
            let end = w - b
            for y in b..<(h - b) {
                let slot = y % 3
                clear(slot)
                let row = scores + slot * w, cols = columns + slot * w
                var n = 0
                var x = b
                while x < end {
                    let p = base + y * w + x
                    @inline(__always) func load(_ off: Int) -> SIMD16<UInt8> {
                        UnsafeRawPointer(p + off).loadUnaligned(as: SIMD16<UInt8>.self)
                    }
                    let c = load(0)
                    // Byte masks (0xFF / 0): brighter than c + t, darker than c - t; lanes where
                    // c + t overflows (c - t underflows) can have no brighter (darker) pixel.
                    let hi = c &+ tv, lo = c &- tv
                    let hiOK = ~mask(c .> cap), loOK = ~mask(c .< tv)
                    @inline(__always) func brighter(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> { mask(v .> hi) & hiOK }
                    @inline(__always) func darker(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> { mask(v .< lo) & loOK }
                    let p0 = load(o0), p4 = load(o4), p8 = load(o8), p12 = load(o12)
                    let b0 = brighter(p0), b4 = brighter(p4), b8 = brighter(p8), b12 = brighter(p12)
                    let d0 = darker(p0), d4 = darker(p4), d8 = darker(p8), d12 = darker(p12)
                    // A 9-arc always covers two neighbouring compass pixels.
                    let bc: SIMD16<UInt8> = (b0 & b4) | (b4 & b8) | (b8 & b12) | (b12 & b0)
                    let dc: SIMD16<UInt8> = (d0 & d4) | (d4 & d8) | (d8 & d12) | (d12 & d0)
                    let candidates = bc | dc
                    if nonzero(candidates) {
                        // The full test on 16 lanes, for each polarity that has candidates: runs of
                        // 2, 4, 8, then 9 around the circle; then the SAD scores, summed in 16-bit
                        // lanes (even and odd lanes apart).
                        let p1 = load(o1), p2 = load(o2), p3 = load(o3), p5 = load(o5), p6 = load(o6), p7 = load(o7)
                        let p9 = load(o9), p10 = load(o10), p11 = load(o11), p13 = load(o13), p14 = load(o14), p15 = load(o15)
                        var barc = SIMD16<UInt8>(repeating: 0), darc = barc
                        var bEven = SIMD8<UInt16>(repeating: 0), bOdd = bEven, dEven = bEven, dOdd = bEven
                        if nonzero(bc) {
                            let b1 = brighter(p1), b2 = brighter(p2), b3 = brighter(p3), b5 = brighter(p5), b6 = brighter(p6), b7 = brighter(p7)
                            let b9 = brighter(p9), b10 = brighter(p10), b11 = brighter(p11), b13 = brighter(p13), b14 = brighter(p14), b15 = brighter(p15)
                            let br2_0 = b0 & b1, br2_1 = b1 & b2, br2_2 = b2 & b3, br2_3 = b3 & b4, br2_4 = b4 & b5, br2_5 = b5 & b6, br2_6 = b6 & b7, br2_7 = b7 & b8
                            let br2_8 = b8 & b9, br2_9 = b9 & b10, br2_10 = b10 & b11, br2_11 = b11 & b12, br2_12 = b12 & b13, br2_13 = b13 & b14, br2_14 = b14 & b15, br2_15 = b15 & b0
                            let br4_0 = br2_0 & br2_2, br4_1 = br2_1 & br2_3, br4_2 = br2_2 & br2_4, br4_3 = br2_3 & br2_5, br4_4 = br2_4 & br2_6, br4_5 = br2_5 & br2_7, br4_6 = br2_6 & br2_8, br4_7 = br2_7 & br2_9
                            let br4_8 = br2_8 & br2_10, br4_9 = br2_9 & br2_11, br4_10 = br2_10 & br2_12, br4_11 = br2_11 & br2_13, br4_12 = br2_12 & br2_14, br4_13 = br2_13 & br2_15, br4_14 = br2_14 & br2_0, br4_15 = br2_15 & br2_1
                            let br8_0 = br4_0 & br4_4, br8_1 = br4_1 & br4_5, br8_2 = br4_2 & br4_6, br8_3 = br4_3 & br4_7, br8_4 = br4_4 & br4_8, br8_5 = br4_5 & br4_9, br8_6 = br4_6 & br4_10, br8_7 = br4_7 & br4_11
                            let br8_8 = br4_8 & br4_12, br8_9 = br4_9 & br4_13, br8_10 = br4_10 & br4_14, br8_11 = br4_11 & br4_15, br8_12 = br4_12 & br4_0, br8_13 = br4_13 & br4_1, br8_14 = br4_14 & br4_2, br8_15 = br4_15 & br4_3
                            barc |= br8_0 & b8
                            barc |= br8_1 & b9
                            barc |= br8_2 & b10
                            barc |= br8_3 & b11
                            barc |= br8_4 & b12
                            barc |= br8_5 & b13
                            barc |= br8_6 & b14
                            barc |= br8_7 & b15
                            barc |= br8_8 & b0
                            barc |= br8_9 & b1
                            barc |= br8_10 & b2
                            barc |= br8_11 & b3
                            barc |= br8_12 & b4
                            barc |= br8_13 & b5
                            barc |= br8_14 & b6
                            barc |= br8_15 & b7
                            if nonzero(barc) {
                                accumulate((p0 &- hi) & b0, &bEven, &bOdd)
                                accumulate((p1 &- hi) & b1, &bEven, &bOdd)
                                accumulate((p2 &- hi) & b2, &bEven, &bOdd)
                                accumulate((p3 &- hi) & b3, &bEven, &bOdd)
                                accumulate((p4 &- hi) & b4, &bEven, &bOdd)
                                accumulate((p5 &- hi) & b5, &bEven, &bOdd)
                                accumulate((p6 &- hi) & b6, &bEven, &bOdd)
                                accumulate((p7 &- hi) & b7, &bEven, &bOdd)
                                accumulate((p8 &- hi) & b8, &bEven, &bOdd)
                                accumulate((p9 &- hi) & b9, &bEven, &bOdd)
                                accumulate((p10 &- hi) & b10, &bEven, &bOdd)
                                accumulate((p11 &- hi) & b11, &bEven, &bOdd)
                                accumulate((p12 &- hi) & b12, &bEven, &bOdd)
                                accumulate((p13 &- hi) & b13, &bEven, &bOdd)
                                accumulate((p14 &- hi) & b14, &bEven, &bOdd)
                                accumulate((p15 &- hi) & b15, &bEven, &bOdd)
                            }
                        }
                        if nonzero(dc) {
                            let d1 = darker(p1), d2 = darker(p2), d3 = darker(p3), d5 = darker(p5), d6 = darker(p6), d7 = darker(p7)
                            let d9 = darker(p9), d10 = darker(p10), d11 = darker(p11), d13 = darker(p13), d14 = darker(p14), d15 = darker(p15)
                            let dr2_0 = d0 & d1, dr2_1 = d1 & d2, dr2_2 = d2 & d3, dr2_3 = d3 & d4, dr2_4 = d4 & d5, dr2_5 = d5 & d6, dr2_6 = d6 & d7, dr2_7 = d7 & d8
                            let dr2_8 = d8 & d9, dr2_9 = d9 & d10, dr2_10 = d10 & d11, dr2_11 = d11 & d12, dr2_12 = d12 & d13, dr2_13 = d13 & d14, dr2_14 = d14 & d15, dr2_15 = d15 & d0
                            let dr4_0 = dr2_0 & dr2_2, dr4_1 = dr2_1 & dr2_3, dr4_2 = dr2_2 & dr2_4, dr4_3 = dr2_3 & dr2_5, dr4_4 = dr2_4 & dr2_6, dr4_5 = dr2_5 & dr2_7, dr4_6 = dr2_6 & dr2_8, dr4_7 = dr2_7 & dr2_9
                            let dr4_8 = dr2_8 & dr2_10, dr4_9 = dr2_9 & dr2_11, dr4_10 = dr2_10 & dr2_12, dr4_11 = dr2_11 & dr2_13, dr4_12 = dr2_12 & dr2_14, dr4_13 = dr2_13 & dr2_15, dr4_14 = dr2_14 & dr2_0, dr4_15 = dr2_15 & dr2_1
                            let dr8_0 = dr4_0 & dr4_4, dr8_1 = dr4_1 & dr4_5, dr8_2 = dr4_2 & dr4_6, dr8_3 = dr4_3 & dr4_7, dr8_4 = dr4_4 & dr4_8, dr8_5 = dr4_5 & dr4_9, dr8_6 = dr4_6 & dr4_10, dr8_7 = dr4_7 & dr4_11
                            let dr8_8 = dr4_8 & dr4_12, dr8_9 = dr4_9 & dr4_13, dr8_10 = dr4_10 & dr4_14, dr8_11 = dr4_11 & dr4_15, dr8_12 = dr4_12 & dr4_0, dr8_13 = dr4_13 & dr4_1, dr8_14 = dr4_14 & dr4_2, dr8_15 = dr4_15 & dr4_3
                            darc |= dr8_0 & d8
                            darc |= dr8_1 & d9
                            darc |= dr8_2 & d10
                            darc |= dr8_3 & d11
                            darc |= dr8_4 & d12
                            darc |= dr8_5 & d13
                            darc |= dr8_6 & d14
                            darc |= dr8_7 & d15
                            darc |= dr8_8 & d0
                            darc |= dr8_9 & d1
                            darc |= dr8_10 & d2
                            darc |= dr8_11 & d3
                            darc |= dr8_12 & d4
                            darc |= dr8_13 & d5
                            darc |= dr8_14 & d6
                            darc |= dr8_15 & d7
                            if nonzero(darc) {
                                accumulate((lo &- p0) & d0, &dEven, &dOdd)
                                accumulate((lo &- p1) & d1, &dEven, &dOdd)
                                accumulate((lo &- p2) & d2, &dEven, &dOdd)
                                accumulate((lo &- p3) & d3, &dEven, &dOdd)
                                accumulate((lo &- p4) & d4, &dEven, &dOdd)
                                accumulate((lo &- p5) & d5, &dEven, &dOdd)
                                accumulate((lo &- p6) & d6, &dEven, &dOdd)
                                accumulate((lo &- p7) & d7, &dEven, &dOdd)
                                accumulate((lo &- p8) & d8, &dEven, &dOdd)
                                accumulate((lo &- p9) & d9, &dEven, &dOdd)
                                accumulate((lo &- p10) & d10, &dEven, &dOdd)
                                accumulate((lo &- p11) & d11, &dEven, &dOdd)
                                accumulate((lo &- p12) & d12, &dEven, &dOdd)
                                accumulate((lo &- p13) & d13, &dEven, &dOdd)
                                accumulate((lo &- p14) & d14, &dEven, &dOdd)
                                accumulate((lo &- p15) & d15, &dEven, &dOdd)
                            }
                        }
                        guard nonzero(barc | darc) else { x += 16; continue }
                        let bHalves = unsafeBitCast(barc, to: SIMD2<UInt64>.self)
                        let dHalves = unsafeBitCast(darc, to: SIMD2<UInt64>.self)
                        let lanes = min(16, end - x)
                        for half in 0..<2 {
                            let bWord = bHalves[half], dWord = dHalves[half]
                            var word = bWord | dWord
                            while word != 0 {
                                let byte = word.trailingZeroBitCount / 8
                                word &= ~(UInt64(0xFF) << UInt64(byte * 8))
                                let lane = half * 8 + byte
                                guard lane < lanes else { break }
                                let isB = (bWord >> UInt64(byte * 8)) & 0xFF != 0
                                let isD = (dWord >> UInt64(byte * 8)) & 0xFF != 0
                                let bsum = Int32(lane & 1 == 0 ? bEven[lane >> 1] : bOdd[lane >> 1])
                                let dsum = Int32(lane & 1 == 0 ? dEven[lane >> 1] : dOdd[lane >> 1])
                                row[x + lane] = max(isB ? bsum : 0, isD ? dsum : 0) &+ 1
                                cols[n] = Int32(x + lane)
                                n += 1
                            }
                        }
                    }
                    x += 16
                }
                setCount(slot, n)
                if y - 1 >= b { suppress(y - 1) }
            }
        }
        // The last row: the row after it has no scores.
        let last = h - b - 1
        clear((last + 1) % 3)
        suppress(last)
        return result
    }
}

/// 0xFF in lanes where the mask is true, 0 elsewhere (a free reinterpretation).
@inline(__always)
func mask(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> {
    unsafeBitCast(m, to: SIMD16<UInt8>.self)
}

/// Adds the 16 bytes of `v` into 16-bit sums of its even and odd lanes.
@inline(__always)
func accumulate(_ v: SIMD16<UInt8>, _ even: inout SIMD8<UInt16>, _ odd: inout SIMD8<UInt16>) {
    let words = unsafeBitCast(v, to: SIMD8<UInt16>.self)
    #if _endian(little)
    even &+= words & SIMD8<UInt16>(repeating: 0x00FF)
    odd &+= words &>> 8
    #else
    odd &+= words & SIMD8<UInt16>(repeating: 0x00FF)
    even &+= words &>> 8
    #endif
}

@inline(__always)
func nonzero(_ v: SIMD16<UInt8>) -> Bool {
    let halves = unsafeBitCast(v, to: SIMD2<UInt64>.self)
    return halves[0] | halves[1] != 0
}
