import Foundation
import Testing
@testable import Localizer
import VPSImageIO

@Suite("Describing given positions")
struct DescribeAtPositionsTests {
    /// A scene large enough for all eight levels.
    static let image = TestScenes.textured(width: 480, height: 360, seed: 11)

    @Test("at the extractor's own keypoints it gives the extractor's keypoints and descriptors, bit for bit")
    func matchesExtractor() throws {
        let extractor = FeatureExtractor(.init(maxFeatures: 800))
        let features = extractor.extract(Self.image)
        try #require(features.count > 400, "only \(features.count) features")
        let levels = Set(features.keypoints.map(\.octave))
        #expect(levels.count >= 6, "features on levels \(levels.sorted()) only")
        let requests = features.keypoints.map { FeatureExtractor.PositionRequest(x: $0.x, y: $0.y, level: $0.octave) }
        let described = extractor.describe(Self.image, at: requests)
        #expect(described.count == features.count)
        var mismatches = 0
        for (i, d) in described.enumerated() {
            guard case .described(let k, let descriptor) = d else {
                Issue.record("keypoint \(i) at (\(requests[i].x), \(requests[i].y)) level \(requests[i].level): \(d)")
                continue
            }
            // Same level image, same pixel, same code path: no bit may differ.
            if k != features.keypoints[i] || hammingDistance(descriptor, features.descriptors[i]) != 0 { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) of \(features.count) keypoints differ")
    }

    @Test("sub-pixel positions snap to the nearest level pixel")
    func snapsToLevelPixels() throws {
        let extractor = FeatureExtractor()
        let out = extractor.describe(Self.image, at: [
            .init(x: 200, y: 150, level: 0), .init(x: 200.4, y: 149.6, level: 0), .init(x: 200, y: 150, level: 3),
        ])
        guard case .described(let k0, let d0) = out[0], case .described(let k1, let d1) = out[1], case .described(let k3, _) = out[2] else {
            Issue.record("not described: \(out)")
            return
        }
        #expect(k0 == k1 && d0 == d1)
        #expect(k0.x == 200 && k0.y == 150)
        // Level 3 pixels are about 1.73 input pixels wide: the snapped centre is within 0.87 px.
        #expect(k3.octave == 3 && k3.size > 31 * 1.7 && k3.size < 31 * 1.8)
        #expect(abs(k3.x - 200) <= 0.87 && abs(k3.y - 150) <= 0.87)
        // 0.6 input pixels (0.35 level pixels) from that centre is the same pixel, 1.2 (0.69) is the next one.
        let around = extractor.describe(Self.image, at: [.init(x: k3.x + 0.6, y: k3.y - 0.6, level: 3), .init(x: k3.x + 1.2, y: k3.y, level: 3)])
        #expect(around[0] == out[2])
        if case .described(let next, _) = around[1] { #expect(next.x > k3.x + 1.6 && next.y == k3.y) } else { Issue.record("\(around[1])") }
    }

    @Test("snapping moves a nearby position onto the extractor's corner and reports flat places")
    func snapsToCorners() throws {
        let extractor = FeatureExtractor(.init(maxFeatures: 500))
        let features = extractor.extract(Self.image)
        // Keypoints of levels 0 and 2, each asked for 1.2 level pixels away from where it was found.
        let picked = features.keypoints.indices.filter { [0, 2].contains(features.keypoints[$0].octave) }.prefix(120)
        try #require(picked.count >= 60)
        let requests = picked.map { i -> FeatureExtractor.PositionRequest in
            let k = features.keypoints[i]
            let step = 1.2 * Float(pow(1.2, Double(k.octave)))
            return .init(x: k.x + step, y: k.y - step * 0.5, level: k.octave, snapRadius: 2)
        }
        let out = extractor.describe(Self.image, at: requests)
        var exact = 0
        for (j, i) in picked.enumerated() {
            if case .described(let k, let d) = out[j], k == features.keypoints[i], d == features.descriptors[i] { exact += 1 }
        }
        // Another FAST corner (not kept by the extractor's budget) may be nearer the shifted position; most are not.
        #expect(Double(exact) >= 0.8 * Double(picked.count), "\(exact) of \(picked.count) snapped back to their keypoint")
        // A flat image has no corner to snap to: reported, not described at the position.
        let flat = GrayImage(width: 200, height: 200, pixels: [UInt8](repeating: 128, count: 200 * 200))
        #expect(extractor.describe(flat, at: [.init(x: 100, y: 100, level: 0, snapRadius: 3), .init(x: 3, y: 100, level: 0, snapRadius: 3)])
                == [.noCornerNearby, .tooCloseToBorder])
        if case .described = extractor.describe(flat, at: [.init(x: 100, y: 100, level: 0)])[0] {} else { Issue.record("unsnapped flat position not described") }
    }

    @Test("positions near the border or outside the image are reported, not dropped")
    func borders() {
        let extractor = FeatureExtractor()
        let w = Float(Self.image.width), h = Float(Self.image.height)
        let positions: [SIMD2<Float>] = [[16, 100], [15, 100], [100, 5], [w - 17, h - 17], [w - 16, 100], [-40, 50], [.nan, 10], [1e9, 3]]
        let out = extractor.describe(Self.image, at: positions, levels: [0, 2])
        #expect(out.count == positions.count && out.allSatisfy { $0.count == 2 })
        func described(_ d: FeatureExtractor.PositionDescription) -> Bool { if case .described = d { return true } else { return false } }
        #expect(described(out[0][0]) && described(out[3][0]))
        for p in [1, 2, 4, 5, 6, 7] { #expect(out[p][0] == .tooCloseToBorder, "position \(positions[p])") }
        // At level 2 (1.44 times smaller) 16 level pixels are 23 input pixels: (16, 100) is too close there.
        #expect(out[0][1] == .tooCloseToBorder)
        #expect(described(out[3][1]) == false)
    }

    @Test("levels the image does not have are reported")
    func missingLevels() {
        let extractor = FeatureExtractor()
        let small = TestScenes.textured(width: 90, height: 80, seed: 3)
        let count = extractor.levelCount(width: small.width, height: small.height)
        #expect(count == FeatureExtractor.pyramid(small, configuration: extractor.configuration).count)
        #expect(count > 1 && count < 8)
        #expect(extractor.levelCount(width: Self.image.width, height: Self.image.height) == 8)
        let out = extractor.describe(small, at: [.init(x: 45, y: 40, level: count - 1), .init(x: 45, y: 40, level: count),
                                                 .init(x: 45, y: 40, level: -1), .init(x: 45, y: 40, level: 99)])
        if case .described(let k, _) = out[0] { #expect(k.octave == count - 1) } else { Issue.record("the last level: \(out[0])") }
        #expect(Array(out[1...]) == [.noSuchLevel, .noSuchLevel, .noSuchLevel])
        #expect(extractor.describe(small, at: []).isEmpty)
    }
}
