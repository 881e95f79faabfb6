import Foundation
@testable import Localizer
import Testing
import VPSImageIO

@Suite("Features")
struct FeaturesTests {
    // MARK: FAST

    /// The FAST-9 test and SAD score written plainly, with the same 3x3 suppression.
    static func referenceFAST(_ image: GrayImage, threshold t: Int, border: Int) -> [Corner] {
        let w = image.width, h = image.height
        var score = [Int32](repeating: 0, count: w * h)
        var bright = [Bool](repeating: false, count: 16), dark = bright
        for y in border..<(h - border) {
            for x in border..<(w - border) {
                let c = Int(image[x, y])
                var bsum = 0, dsum = 0, nb = 0, nd = 0
                for (i, (dx, dy)) in FAST.circle.enumerated() {
                    let v = Int(image[x + dx, y + dy])
                    bright[i] = v > c + t
                    dark[i] = v < c - t
                    if bright[i] { nb += 1 }
                    if dark[i] { nd += 1 }
                    bsum += max(v - (c + t), 0)
                    dsum += max((c - t) - v, 0)
                }
                func arc(_ m: [Bool]) -> Bool {
                    (0..<16).contains { s in (0..<9).allSatisfy { m[(s + $0) % 16] } }
                }
                // An arc of 9 needs 9 such pixels (checked first: tests run unoptimised).
                let isB = nb >= 9 && arc(bright), isD = nd >= 9 && arc(dark)
                if isB || isD { score[y * w + x] = Int32(max(isB ? bsum : 0, isD ? dsum : 0) + 1) }
            }
        }
        var out: [Corner] = []
        for y in border..<(h - border) {
            for x in border..<(w - border) where score[y * w + x] > 0 {
                let s = score[y * w + x]
                var keep = true
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let n = score[(y + dy) * w + x + dx]
                        let before = dy < 0 || (dy == 0 && dx < 0)
                        if before ? n >= s : n > s { keep = false }
                    }
                }
                if keep { out.append(Corner(x: Int32(x), y: Int32(y), score: s)) }
            }
        }
        return out
    }

    @Test("FAST finds the four corners of a bright square and nothing on its edges")
    func fastSquare() {
        var image = GrayImage(width: 64, height: 64, filledWith: 40)
        for y in 20..<44 { for x in 20..<44 { image[x, y] = 200 } }
        let corners = FAST.detect(image, threshold: 20, border: 8)
        let positions = Set(corners.map { "\($0.x),\($0.y)" })
        #expect(corners.count == 4, "found \(corners.map { ($0.x, $0.y) })")
        for (x, y) in [(20, 20), (43, 20), (20, 43), (43, 43)] {
            let near = corners.contains { abs(Int($0.x) - x) <= 1 && abs(Int($0.y) - y) <= 1 }
            #expect(near, "no corner within 1 px of (\(x), \(y)); found \(positions)")
        }
    }

    @Test("FAST finds nothing on a flat image or a smooth ramp")
    func fastFlat() {
        #expect(FAST.detect(GrayImage(width: 80, height: 60, filledWith: 128), threshold: 20, border: 8).isEmpty)
        var ramp = GrayImage(width: 80, height: 60)
        for y in 0..<60 { for x in 0..<80 { ramp[x, y] = UInt8(x * 3) } }
        #expect(FAST.detect(ramp, threshold: 20, border: 8).isEmpty)
    }

    @Test("The vectorised FAST equals a plain reference implementation", arguments: [7, 20, 40])
    func fastMatchesReference(threshold: Int) {
        // An odd width exercises the partial last SIMD block of each row.
        let image = TestScenes.textured(width: 203, height: 131, seed: 5)
        let fast = FAST.detect(image, threshold: threshold, border: 16)
        let reference = Self.referenceFAST(image, threshold: threshold, border: 16)
        #expect(!reference.isEmpty)
        #expect(fast.map { [$0.x, $0.y, $0.score] } == reference.map { [$0.x, $0.y, $0.score] })
    }

    // MARK: Extraction

    @Test("Level budgets are geometric and sum to the feature count")
    func budgets() {
        let b = FeatureExtractor.budgets(maxFeatures: 1000, levels: 8, scaleFactor: 1.2)
        #expect(b.count == 8)
        #expect(b.reduce(0, +) == 1000)
        for i in 1..<7 { #expect(b[i] < b[i - 1]) }
    }

    @Test("The BRIEF pattern has 256 distinct pairs inside the rotation-safe disc")
    func pattern() {
        let p = BRIEF.pattern
        #expect(p.x1.count == 256 && p.y2.count == 256)
        for i in 0..<256 {
            #expect(p.x1[i] * p.x1[i] + p.y1[i] * p.y1[i] <= 169)
            #expect(p.x2[i] * p.x2[i] + p.y2[i] * p.y2[i] <= 169)
            #expect(p.x1[i] != p.x2[i] || p.y1[i] != p.y2[i])
        }
    }

    @Test("Extraction gives the requested count with sane keypoint fields")
    func fields() {
        let image = TestScenes.textured(width: 640, height: 480, seed: 2)
        let features = FeatureExtractor(.init(maxFeatures: 500)).extract(image)
        #expect(features.count >= 450 && features.count <= 500, "got \(features.count)")
        #expect(features.descriptors.count == features.keypoints.count)
        for k in features.keypoints {
            #expect(k.x >= 0 && k.x < 640 && k.y >= 0 && k.y < 480)
            #expect(k.angle >= 0 && k.angle < 360)
            #expect((0..<8).contains(k.octave))
            #expect(k.size >= 31)
        }
        // Features spread over the image: every quadrant holds some.
        for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let n = features.keypoints.filter { Int($0.x) / 320 == qx && Int($0.y) / 240 == qy }.count
            #expect(n >= 50, "quadrant (\(qx), \(qy)) has only \(n) features")
        }
        // Descriptors are not degenerate.
        #expect(Set(features.descriptors.map { "\($0)" }).count > features.count * 9 / 10)
    }

    @Test("Extraction is deterministic, sequential or parallel")
    func determinism() {
        let image = TestScenes.textured(width: 320, height: 240, seed: 3)
        let a = FeatureExtractor(.init(maxFeatures: 300)).extract(image)
        let b = FeatureExtractor(.init(maxFeatures: 300)).extract(image)
        let c = FeatureExtractor(.init(maxFeatures: 300, parallel: true)).extract(image)
        #expect(a.count > 200)
        #expect(a == b)
        #expect(a == c)
    }

    @Test("Tiny and flat images give no features and no crash")
    func degenerate() {
        let extractor = FeatureExtractor()
        #expect(extractor.extract(GrayImage(width: 0, height: 0)).count == 0)
        #expect(extractor.extract(GrayImage(width: 20, height: 20, filledWith: 9)).count == 0)
        #expect(extractor.extract(GrayImage(width: 300, height: 200, filledWith: 9)).count == 0)
    }

    @Test("Hamming distance counts differing bits")
    func hamming() {
        let a = BinaryDescriptor(0, 0, 0, 0)
        let b = BinaryDescriptor(0b1011, UInt64.max, 0, 1 << 63)
        #expect(hammingDistance(a, b) == 3 + 64 + 1)
        #expect(hammingDistance(b, b) == 0)
    }

    // MARK: Invariance

    /// Matches features of an image with those of its rotated/scaled copy and
    /// returns (matches, precision): the share of matches whose keypoints
    /// correspond under the known transform.
    static func matchPrecision(degrees: Double, scale: Double) -> (Int, Double) {
        let image = TestScenes.textured(width: 360, height: 360, seed: 11)
        let (warped, forward) = TestScenes.warp(image, degrees: degrees, scale: scale)
        let extractor = FeatureExtractor(.init(maxFeatures: 500))
        let a = extractor.extract(image), b = extractor.extract(warped)
        let matcher = BruteForceMatcher(descriptors: b.descriptors, owners: (0..<UInt32(b.count)).map { $0 }, pointCount: b.count)
        let matches = matcher.match(a.descriptors, options: MatchOptions(maxDistance: 64, ratio: 0.8))
        var correct = 0, counted = 0
        for m in matches {
            let ka = a.keypoints[m.query], kb = b.keypoints[m.point]
            let (ex, ey) = forward(Double(ka.x), Double(ka.y))
            // Only keypoints whose correspondent lies well inside the warped image can match.
            guard ex > 20, ey > 20, ex < Double(warped.width - 20), ey < Double(warped.height - 20) else { continue }
            counted += 1
            let tolerance = 2.5 * Double(kb.size) / 31
            if hypot(ex - Double(kb.x), ey - Double(kb.y)) <= tolerance { correct += 1 }
        }
        return (counted, counted == 0 ? 0 : Double(correct) / Double(counted))
    }

    @Test("Descriptors match at corresponding points under rotation and scale",
          arguments: [(30.0, 1.0), (90.0, 1.0), (0.0, 0.7), (0.0, 1.5), (30.0, 0.7)])
    func invariance(degrees: Double, scale: Double) {
        let (matches, precision) = Self.matchPrecision(degrees: degrees, scale: scale)
        #expect(matches >= 60, "only \(matches) matches at \(degrees) degrees, scale \(scale)")
        #expect(precision >= 0.85, "precision \(precision) over \(matches) matches at \(degrees) degrees, scale \(scale)")
    }
}
