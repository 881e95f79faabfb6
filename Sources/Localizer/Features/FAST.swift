import VPSImageIO

#if !_endian(little)
#error("FAST reads byte lanes as little-endian words and 64-bit halves")
#endif

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
/// absolute differences minus `t` over the brighter circle pixels of a corner
/// with a brighter arc, or the darker ones of a corner with a darker arc (no
/// pixel has both): Rosten and Drummond's SAD score.
enum FAST {

    /// The circle, in order, as (dx, dy).
    static let circle: [(Int, Int)] = [
        (0, -3), (1, -3), (2, -2), (3, -1), (3, 0), (3, 1), (2, 2), (1, 3),
        (0, 3), (-1, 3), (-2, 2), (-3, 1), (-3, 0), (-3, -1), (-2, -2), (-1, -3),
    ]

    /// Corners in the rectangle `[border, width - border) x [border, height - border)`, after
    /// non-maximum suppression over 3x3 neighbourhoods, in raster order.
    static func detect(_ image: GrayImage, threshold: Int, border: Int) -> [Corner] {
        let w = image.width, h = image.height
        let b = max(border, 8) // SIMD loads overshoot a row by up to 18 bytes; 8 rows keep them inside
        guard w - 2 * b >= 1, h - 2 * b >= 1 else { return [] }
        let t = UInt8(clamping: max(threshold, 1))
        // Three rows of scores (a ring buffer; 0: no corner) and the columns of each row's corners.
        // Every row is written whole, 16 lanes at a time, so a row needs 16 spare lanes.
        let stride = w + 16
        let scores = UnsafeMutablePointer<UInt16>.allocate(capacity: 3 * stride)
        scores.initialize(repeating: 0, count: 3 * stride)
        let columns = UnsafeMutablePointer<Int32>.allocate(capacity: 3 * w)
        var counts = (0, 0, 0)
        var found = CornerBuffer()
        defer {
            scores.deallocate()
            columns.deallocate()
        }
        func count(_ slot: Int) -> Int { slot == 0 ? counts.0 : (slot == 1 ? counts.1 : counts.2) }
        func setCount(_ slot: Int, _ n: Int) {
            if slot == 0 { counts.0 = n } else if slot == 1 { counts.1 = n } else { counts.2 = n }
        }
        func suppress(_ y: Int) {
            let slot = y % 3, n = count(slot)
            let prev = scores + ((y + 2) % 3) * stride, cur = scores + slot * stride, next = scores + ((y + 1) % 3) * stride
            let cols = columns + slot * w
            let out = found.reserve(n)
            var kept = 0
            for k in 0..<n {
                let x = Int(cols[k])
                let s = cur[x]
                // Strictly greater than the neighbours before it in raster order, at least equal to
                // those after. Without branches: whether a corner survives is hard to predict.
                let before = (s > prev[x - 1] ? 1 : 0) & (s > prev[x] ? 1 : 0) & (s > prev[x + 1] ? 1 : 0) & (s > cur[x - 1] ? 1 : 0)
                let after = (s >= cur[x + 1] ? 1 : 0) & (s >= next[x - 1] ? 1 : 0) & (s >= next[x] ? 1 : 0) & (s >= next[x + 1] ? 1 : 0)
                out[kept] = Corner(x: Int32(x), y: Int32(y), score: Int32(s))
                kept &+= before & after
            }
            found.count += kept
        }

        image.pixels.withUnsafeBufferPointer { src in
            let base = src.baseAddress!
            let tv = SIMD16<UInt8>(repeating: t)
            let cap = SIMD16<UInt8>(repeating: 255 &- t)
            let flip = SIMD16<UInt8>(repeating: 0x80)
            let capS = unsafeBitCast(cap ^ flip, to: SIMD16<Int8>.self), tS = unsafeBitCast(tv ^ flip, to: SIMD16<Int8>.self)
            let one = SIMD16<UInt8>(repeating: 1)
            let laneIndex = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
            let o = circle.map { $0.1 * w + $0.0 }
            let (o0, o1, o2, o3, o4, o5, o6, o7) = (o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7])
            let (o8, o9, o10, o11, o12, o13, o14, o15) = (o[8], o[9], o[10], o[11], o[12], o[13], o[14], o[15])
            let end = w - b
            for y in b..<(h - b) {
                let slot = y % 3
                let row = scores + slot * stride, cols = columns + slot * w
                var n = 0
                var x = b
                while x < end {
                    let p = base + y * w + x
                    let out = UnsafeMutableRawPointer(row + x)
                    // Pixels are compared as signed bytes (v ^ 0x80), one instruction per compare.
                    @inline(__always) func load(_ off: Int) -> SIMD16<Int8> {
                        unsafeBitCast(UnsafeRawPointer(p + off).loadUnaligned(as: SIMD16<UInt8>.self) ^ flip, to: SIMD16<Int8>.self)
                    }
                    let c = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
                    let cs = unsafeBitCast(c ^ flip, to: SIMD16<Int8>.self)
                    // Brighter means above c + t, darker below c - t. Where c + t would pass 255
                    // the bound is 255, which no pixel exceeds (and 0 where c - t would pass 0).
                    let hi = unsafeBitCast(((c &+ tv) | mask(cs .> capS)) ^ flip, to: SIMD16<Int8>.self)
                    let lo = unsafeBitCast(((c &- tv) & ~mask(tS .> cs)) ^ flip, to: SIMD16<Int8>.self)
                    let p0 = load(o0), p4 = load(o4), p8 = load(o8), p12 = load(o12)
                    // A 9-arc always covers two neighbouring compass pixels:
                    // (0 or 8) and (4 or 12) is the same as 0&4 | 4&8 | 8&12 | 12&0.
                    let bc = (mask(p0 .> hi) | mask(p8 .> hi)) & (mask(p4 .> hi) | mask(p12 .> hi))
                    let dc = (mask(lo .> p0) | mask(lo .> p8)) & (mask(lo .> p4) | mask(lo .> p12))
                    guard nonzero(bc | dc) else {
                        out.storeBytes(of: SIMD16<UInt16>(repeating: 0), as: SIMD16<UInt16>.self)
                        x += 16
                        continue
                    }
                    let p1 = load(o1), p2 = load(o2), p3 = load(o3), p5 = load(o5), p6 = load(o6), p7 = load(o7)
                    let p9 = load(o9), p10 = load(o10), p11 = load(o11), p13 = load(o13), p14 = load(o14), p15 = load(o15)
                    var barc = SIMD16<UInt8>(repeating: 0), darc = barc
                    if nonzero(bc) { barc = arc9(mask(p0 .> hi), mask(p1 .> hi), mask(p2 .> hi), mask(p3 .> hi),
                                    mask(p4 .> hi), mask(p5 .> hi), mask(p6 .> hi), mask(p7 .> hi),
                                    mask(p8 .> hi), mask(p9 .> hi), mask(p10 .> hi), mask(p11 .> hi),
                                    mask(p12 .> hi), mask(p13 .> hi), mask(p14 .> hi), mask(p15 .> hi)) }
                    if nonzero(dc) { darc = arc9(mask(lo .> p0), mask(lo .> p1), mask(lo .> p2), mask(lo .> p3),
                                    mask(lo .> p4), mask(lo .> p5), mask(lo .> p6), mask(lo .> p7),
                                    mask(lo .> p8), mask(lo .> p9), mask(lo .> p10), mask(lo .> p11),
                                    mask(lo .> p12), mask(lo .> p13), mask(lo .> p14), mask(lo .> p15)) }
                    if end - x < 16 { // the row's last block reaches past its end
                        let inside = mask(laneIndex .< SIMD16<UInt8>(repeating: UInt8(end - x)))
                        barc &= inside
                        darc &= inside
                    }
                    let corners = barc | darc
                    guard nonzero(corners) else {
                        out.storeBytes(of: SIMD16<UInt16>(repeating: 0), as: SIMD16<UInt16>.self)
                        x += 16
                        continue
                    }
                    // Scores: 1 + the SAD score, summed in 16-bit lanes, for the polarities that have
                    // corners (a pixel cannot hold a brighter and a darker 9-arc at once); 0 elsewhere.
                    var sums = ByteSums()
                    sums.add(corners & one)
                    if nonzero(barc) {
                        @inline(__always) func add(_ v: SIMD16<Int8>) { sums.add(unsafeBitCast(v &- hi, to: SIMD16<UInt8>.self) & mask(v .> hi) & barc) }
                        add(p0); add(p1); add(p2); add(p3); add(p4); add(p5); add(p6); add(p7)
                        add(p8); add(p9); add(p10); add(p11); add(p12); add(p13); add(p14); add(p15)
                    }
                    if nonzero(darc) {
                        @inline(__always) func add(_ v: SIMD16<Int8>) { sums.add(unsafeBitCast(lo &- v, to: SIMD16<UInt8>.self) & mask(lo .> v) & darc) }
                        add(p0); add(p1); add(p2); add(p3); add(p4); add(p5); add(p6); add(p7)
                        add(p8); add(p9); add(p10); add(p11); add(p12); add(p13); add(p14); add(p15)
                    }
                    out.storeBytes(of: sums.lanes(), as: SIMD16<UInt16>.self)
                    let halves = unsafeBitCast(corners, to: SIMD2<UInt64>.self)
                    var word = UInt32(truncatingIfNeeded: spread16(halves[0])) | UInt32(truncatingIfNeeded: spread16(halves[1])) << 8
                    while word != 0 {
                        cols[n] = Int32(x + word.trailingZeroBitCount)
                        n += 1
                        word &= word &- 1
                    }
                    x += 16
                }
                setCount(slot, n)
                if y - 1 >= b { suppress(y - 1) }
            }
        }
        // The last row: the row after it has no scores.
        let last = h - b - 1
        (scores + ((last + 1) % 3) * stride).update(repeating: 0, count: stride)
        suppress(last)
        return found.array()
    }
}

/// A growing buffer of corners, appended to without branches.
struct CornerBuffer: ~Copyable {
    private var storage = UnsafeMutablePointer<Corner>.allocate(capacity: 1024)
    private var capacity = 1024
    var count = 0

    /// Room for `n` more corners after `count`; returns where they go.
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<Corner> {
        if count + n > capacity {
            let grown = max(2 * capacity, count + n)
            let bigger = UnsafeMutablePointer<Corner>.allocate(capacity: grown)
            bigger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity = grown
        }
        return storage + count
    }

    func array() -> [Corner] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    deinit { storage.deallocate() }
}

extension FAST {
    /// 0xFF in the lanes whose 16 circle masks (0xFF / 0, in circle order) hold a run of 9.
    ///
    /// A 9-run from an odd start holds the 8-run from the next (even) start, so it is
    /// enough to look for 8-runs from the 8 even starts `s` extended by pixel `s - 1`
    /// or `s + 8`: pairs, quads, then octets from even starts only.
    @inline(__always)
    static func arc9(_ m0: SIMD16<UInt8>, _ m1: SIMD16<UInt8>, _ m2: SIMD16<UInt8>, _ m3: SIMD16<UInt8>,
                     _ m4: SIMD16<UInt8>, _ m5: SIMD16<UInt8>, _ m6: SIMD16<UInt8>, _ m7: SIMD16<UInt8>,
                     _ m8: SIMD16<UInt8>, _ m9: SIMD16<UInt8>, _ m10: SIMD16<UInt8>, _ m11: SIMD16<UInt8>,
                     _ m12: SIMD16<UInt8>, _ m13: SIMD16<UInt8>, _ m14: SIMD16<UInt8>, _ m15: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let r2_0 = m0 & m1, r2_2 = m2 & m3, r2_4 = m4 & m5, r2_6 = m6 & m7
        let r2_8 = m8 & m9, r2_10 = m10 & m11, r2_12 = m12 & m13, r2_14 = m14 & m15
        let r4_0 = r2_0 & r2_2, r4_2 = r2_2 & r2_4, r4_4 = r2_4 & r2_6, r4_6 = r2_6 & r2_8
        let r4_8 = r2_8 & r2_10, r4_10 = r2_10 & r2_12, r4_12 = r2_12 & r2_14, r4_14 = r2_14 & r2_0
        var arc = (r4_0 & r4_4) & (m15 | m8)
        arc |= (r4_2 & r4_6) & (m1 | m10)
        arc |= (r4_4 & r4_8) & (m3 | m12)
        arc |= (r4_6 & r4_10) & (m5 | m14)
        arc |= (r4_8 & r4_12) & (m7 | m0)
        arc |= (r4_10 & r4_14) & (m9 | m2)
        arc |= (r4_12 & r4_0) & (m11 | m4)
        arc |= (r4_14 & r4_2) & (m13 | m6)
        return arc
    }
}

/// The top bit of each of the 8 bytes of `v`, gathered into the low 8 bits (byte `i` to bit `i`).
@inline(__always)
func spread16(_ v: UInt64) -> UInt64 {
    // Multiplying by this constant moves bit 7 + 8i to bit 56 + i without carries.
    ((v & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
}

/// Per-lane sums of 16-byte vectors in 16-bit lanes: the sum of the vectors read as 8 words
/// (even byte + 256 × odd byte, wrapping) and the sum of their odd bytes, which together give
/// the even sums exactly while each stays below 65536.
struct ByteSums {
    var words = SIMD8<UInt16>(repeating: 0)
    var odd = SIMD8<UInt16>(repeating: 0)

    @inline(__always)
    mutating func add(_ v: SIMD16<UInt8>) {
        let w = unsafeBitCast(v, to: SIMD8<UInt16>.self)
        words &+= w
        odd &+= w &>> 8
    }

    /// The 16 sums in lane order.
    @inline(__always)
    func lanes() -> SIMD16<UInt16> {
        let even = words &- (odd &<< 8)
        // Interleaved: each 32-bit lane holds an even sum below an odd one.
        let pairs = SIMD8<UInt32>(truncatingIfNeeded: even) | SIMD8<UInt32>(truncatingIfNeeded: odd) &<< 16
        return unsafeBitCast(pairs, to: SIMD16<UInt16>.self)
    }
}

/// 0xFF in lanes where the mask is true, 0 elsewhere (a free reinterpretation).
@inline(__always)
func mask(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> {
    unsafeBitCast(m, to: SIMD16<UInt8>.self)
}

@inline(__always)
func nonzero(_ v: SIMD16<UInt8>) -> Bool {
    let halves = unsafeBitCast(v, to: SIMD2<UInt64>.self)
    return halves[0] | halves[1] != 0
}
