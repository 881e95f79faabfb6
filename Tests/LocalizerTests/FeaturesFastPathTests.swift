import Foundation
@testable import Localizer
import Testing
import VPSImageIO

/// The extractor's fast paths against plain computations of the same thing, on
/// photographs (the demo pack's queries and the colmap-maupertuis images) and on
/// images built to reach the edge cases.
@Suite("Features fast paths")
struct FeaturesFastPathTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A demo-pack query photograph (640x480), in the repository.
    static func query(_ name: String) throws -> GrayImage {
        try ImageDecoder.decode(path: repository.appendingPathComponent("Packs/demo/queries/\(name).jpg").path).image
    }

    /// A colmap-maupertuis photograph (1919x1079; reduced in decoding when `maxDimension` is
    /// given) from `shared/data` beside the repository (or beside one of its parents, for
    /// nested worktrees); fails the test when missing.
    static func photograph(_ name: String, maxDimension: Int? = nil) throws -> GrayImage {
        var dir = repository.deletingLastPathComponent()
        for _ in 0..<3 {
            let file = dir.appendingPathComponent("shared/data/colmap-maupertuis/images/\(name).jpg")
            if FileManager.default.fileExists(atPath: file.path) {
                return try ImageDecoder.decode(path: file.path, maxDimension: maxDimension).image
            }
            dir = dir.deletingLastPathComponent()
        }
        Issue.record("shared/data/colmap-maupertuis/images/\(name).jpg not found beside the repository \(repository.path)")
        throw CancellationError()
    }

    static func crop(_ image: GrayImage, x: Int, y: Int, width: Int, height: Int) -> GrayImage {
        var out = GrayImage(width: width, height: height)
        for v in 0..<height { for u in 0..<width { out[u, v] = image[x + u, y + v] } }
        return out
    }

    /// Nil when the arrays are equal, else their sizes and the first place they differ
    /// (whole arrays would make failure reports unreadable).
    static func difference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
        guard a != b else { return nil }
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let left = i < a.count ? "\(a[i])" : "nothing", right = i < b.count ? "\(b[i])" : "nothing"
        return "\(a.count) vs \(b.count) elements, first difference at \(i): \(left) vs \(right)"
    }

    // MARK: FAST

    @Test("Vector FAST equals the plain one on photographs", arguments: [7, 20])
    func fastOnPhotographs(threshold: Int) throws {
        // Parts of a query and of a photograph decoded at 480x270: small enough for the plain
        // detector (tests run unoptimised), detailed enough for dozens of corners at threshold 20, hundreds at 7.
        let images = [Self.crop(try Self.query("query_000"), x: 160, y: 120, width: 321, height: 241),
                      Self.crop(try Self.photograph("01", maxDimension: 480), x: 80, y: 40, width: 331, height: 201)]
        for image in images {
            let fast = FAST.detect(image, threshold: threshold, border: 16)
            let reference = FeaturesTests.referenceFAST(image, threshold: threshold, border: 16)
            #expect(reference.count > 40, "too few corners (\(reference.count)) to compare")
            let difference = Self.difference(fast.map { [$0.x, $0.y, $0.score] }, reference.map { [$0.x, $0.y, $0.score] })
            #expect(difference == nil, "corners [x, y, score], vector vs plain: \(difference ?? "")")
        }
    }

    @Test("Vector FAST equals the plain one near black and white, where c ± t leaves 0...255",
          arguments: [1, 7, 20, 120, 230])
    func fastAtTheExtremes(threshold: Int) {
        // 3x3 blocks of mostly extreme gray levels, with single-pixel noise: 9-arcs at every contrast.
        var rng = TestRandom(seed: 77)
        let levels: [UInt8] = [0, 0, 0, 1, 6, 19, 128, 236, 249, 254, 255, 255, 255]
        var blocks = [UInt8](repeating: 0, count: 40 * 25)
        for i in blocks.indices { blocks[i] = levels[rng.int(0...(levels.count - 1))] }
        var image = GrayImage(width: 117, height: 73)
        for y in 0..<73 {
            for x in 0..<117 {
                image[x, y] = rng.int(0...9) == 0 ? levels[rng.int(0...(levels.count - 1))] : blocks[y / 3 * 40 + x / 3]
            }
        }
        let fast = FAST.detect(image, threshold: threshold, border: 16)
        let reference = FeaturesTests.referenceFAST(image, threshold: threshold, border: 16)
        #expect(reference.count >= 10, "too few corners (\(reference.count)) to compare")
        let difference = Self.difference(fast.map { [$0.x, $0.y, $0.score] }, reference.map { [$0.x, $0.y, $0.score] })
        #expect(difference == nil, "corners [x, y, score], vector vs plain: \(difference ?? "")")
    }

    @Test("Corners ordered by counting sort as by a comparison sort: score down, then index")
    func scoreOrder() throws {
        // Scores repeat often, so the tie order matters.
        let corners = FAST.detect(try Self.photograph("03", maxDimension: 960), threshold: 7, border: 16)
        #expect(corners.count > 1000, "only \(corners.count) corners")
        let expected = corners.indices.sorted { corners[$0].score != corners[$1].score ? corners[$0].score > corners[$1].score : $0 < $1 }
        #expect(FeatureExtractor.byScore(corners) == expected)
        let ties = [Corner(x: 0, y: 0, score: 5), Corner(x: 1, y: 0, score: 9), Corner(x: 2, y: 0, score: 5), Corner(x: 3, y: 0, score: 1)]
        #expect(FeatureExtractor.byScore(ties) == [1, 0, 2, 3])
        #expect(FeatureExtractor.byScore([]) == [])
    }

    // MARK: Pyramid

    /// Bilinear resizing written plainly: for each output pixel, its 2 x 2 source pixels and
    /// 7-bit weights, `(Σ wy·wx·p + 8192) >> 14`.
    static func referenceResize(_ image: GrayImage, width: Int, height: Int) -> GrayImage {
        func tap(_ i: Int, _ n: Int, _ sourceCount: Int) -> (Int, Int) {
            let f = max(0, (Double(i) + 0.5) * Double(sourceCount) / Double(n) - 0.5)
            var j = Int(f.rounded(.down)), w = Int(((f - Double(j)) * 128).rounded())
            if w == 128 { j += 1; w = 0 }
            if j >= sourceCount - 1 { j = max(sourceCount - 2, 0); w = sourceCount == 1 ? 0 : 128 }
            return (j, w)
        }
        var out = GrayImage(width: width, height: height)
        for y in 0..<height {
            let (j, wy) = tap(y, height, image.height)
            let j1 = min(j + 1, image.height - 1)
            for x in 0..<width {
                let (i, wx) = tap(x, width, image.width)
                let i1 = min(i + 1, image.width - 1)
                let sum = (128 - wy) * ((128 - wx) * Int(image[i, j]) + wx * Int(image[i1, j]))
                    + wy * ((128 - wx) * Int(image[i, j1]) + wx * Int(image[i1, j1]))
                out[x, y] = UInt8((sum + 8192) >> 14)
            }
        }
        return out
    }

    @Test("Pairwise bilinear resizing equals the plain one, for even and odd sizes, down and up")
    func resizeMatchesReference() throws {
        let photo = Self.crop(try Self.photograph("03", maxDimension: 960), x: 100, y: 50, width: 333, height: 251)
        for image in [try Self.query("query_004"), photo] {
            let w = image.width, h = image.height
            let sizes = [(Int((Float(w) / 1.2).rounded()), Int((Float(h) / 1.2).rounded())), (w * 5 / 7, h * 5 / 7 | 1),
                         (w * 5 / 7 & ~1, h * 2 / 3 & ~1), (w + 9, h + 4), (17, 9), (1, 3)]
            for (width, height) in sizes {
                let fast = Resize.bilinear(image, width: width, height: height)
                let plain = Self.referenceResize(image, width: width, height: height)
                #expect(fast.width == width && fast.height == height)
                let difference = Self.difference(fast.pixels, plain.pixels)
                #expect(difference == nil, "\(w)x\(h) to \(width)x\(height), pairwise vs plain: \(difference ?? "")")
            }
        }
        // A one-pixel-wide and a one-row source.
        let column = Self.crop(try Self.query("query_004"), x: 300, y: 0, width: 1, height: 480)
        let row = Self.crop(try Self.query("query_004"), x: 0, y: 200, width: 640, height: 1)
        let columnDifference = Self.difference(Resize.bilinear(column, width: 1, height: 400).pixels,
                                               Self.referenceResize(column, width: 1, height: 400).pixels)
        let rowDifference = Self.difference(Resize.bilinear(row, width: 533, height: 1).pixels, Self.referenceResize(row, width: 533, height: 1).pixels)
        #expect(columnDifference == nil, "1x480 to 1x400, pairwise vs plain: \(columnDifference ?? "")")
        #expect(rowDifference == nil, "640x1 to 533x1, pairwise vs plain: \(rowDifference ?? "")")
    }

    // MARK: Smoothing and descriptors

    @Test("A blurred window equals the same pixels of the whole blurred image")
    func windowMatchesBlur() throws {
        let photo = Self.crop(try Self.photograph("02"), x: 600, y: 300, width: 211, height: 157)
        for image in [try Self.query("query_002"), photo] {
            let blurred = Smooth.gaussian7(image)
            let w = image.width, h = image.height, r = Smooth.windowRadius
            var window = [UInt8](repeating: 0, count: Smooth.windowBytes)
            var centres = [(16, 16), (w - 17, h - 17), (16, h - 17), (w - 17, 16), (w / 2, h / 2)]
            var rng = TestRandom(seed: 9)
            for _ in 0..<40 { centres.append((rng.int(16...(w - 17)), rng.int(16...(h - 17)))) }
            var mismatches = 0
            for (x, y) in centres {
                image.pixels.withUnsafeBufferPointer { src in
                    window.withUnsafeMutableBufferPointer { out in
                        Smooth.window(src.baseAddress!, width: w, height: h, x: x, y: y, into: out.baseAddress!)
                    }
                }
                for v in 0...(2 * r) {
                    for u in 0...(2 * r) where window[v * Smooth.windowStride + u] != blurred[x - r + u, y - r + v] {
                        mismatches += 1
                    }
                }
            }
            #expect(mismatches == 0, "\(mismatches) window pixels differ from the blurred \(w)x\(h) image")
        }
    }

    @Test("Extracted descriptors equal BRIEF on the whole blurred pyramid level")
    func descriptorsMatchWholeLevelBlur() throws {
        let photo = Self.crop(try Self.photograph("00"), x: 500, y: 250, width: 720, height: 540)
        for image in [try Self.query("query_000"), photo] {
            let configuration = FeatureExtractor.Configuration(maxFeatures: 800)
            let features = FeatureExtractor(configuration).extract(image)
            #expect(features.count > 600, "only \(features.count) features")
            let levels = FeatureExtractor.pyramid(image, configuration: configuration)
            let blurred = levels.map { Smooth.gaussian7($0) }
            var differ = 0, octaves = Set<Int>()
            for (k, d) in zip(features.keypoints, features.descriptors) {
                let level = levels[k.octave]
                octaves.insert(k.octave)
                let sx = Float(image.width) / Float(level.width), sy = Float(image.height) / Float(level.height)
                let x = Int(((k.x + 0.5) / sx - 0.5).rounded()), y = Int(((k.y + 0.5) / sy - 0.5).rounded())
                let expected = level.pixels.withUnsafeBufferPointer { src in
                    blurred[k.octave].pixels.withUnsafeBufferPointer { sm in
                        Orientation.halfWidths.withUnsafeBufferPointer { hw in
                            BRIEF.integerPattern.withUnsafeBufferPointer { pattern in
                                var offsets = [Int32](repeating: 0, count: 512)
                                return offsets.withUnsafeMutableBufferPointer { off in
                                    let angle = Orientation.angle(src.baseAddress!, stride: level.width, x: x, y: y, halfWidths: hw)
                                    return BRIEF.describe(sm.baseAddress!, stride: level.width, x: x, y: y, angle: angle, pattern: pattern, offsets: off)
                                }
                            }
                        }
                    }
                }
                if expected != d { differ += 1 }
            }
            #expect(differ == 0, "\(differ) of \(features.count) descriptors differ")
            #expect(octaves.count >= 5, "features on only \(octaves.count) levels")
        }
    }
}
