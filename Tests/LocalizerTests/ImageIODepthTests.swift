import Foundation
import Testing
@testable import VPSImageIO

@Suite("ImageIO 16-bit")
struct ImageIODepthTests {
    /// Samples covering the edges of both bytes and the whole range.
    static let edgeValues: [UInt16] = [0, 1, 255, 256, 65535, 257, 32767, 32768, 65534, 0x1234, 0xFF00, 0x00FF]

    /// A `width` x `height` image: the edge values first, then a spread over 0...65535.
    static func pattern(width: Int, height: Int) -> GrayImage16 {
        var state: UInt32 = 12345
        let pixels = (0..<(width * height)).map { i -> UInt16 in
            if i < edgeValues.count { return edgeValues[i] }
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt16(truncatingIfNeeded: state >> 16)
        }
        return GrayImage16(width: width, height: height, pixels: pixels)
    }

    static func expectUnsupported(_ bytes: [UInt8], _ comment: Comment) {
        do {
            _ = try ImageDecoder.decode16(bytes: bytes)
            Issue.record("decoded, expected a refusal: \(comment)")
        } catch {
            #expect(error.kind == .unsupported, "\(comment): \(error)")
        }
    }

    @Test("A 16-bit PNG written to a file reads back with exactly the same samples")
    func pngRoundTrip() throws {
        let dir = try TemporaryDirectory()
        for (w, h) in [(3, 4), (1, 12), (37, 23)] {
            let image = Self.pattern(width: w, height: h)
            let bytes = try ImageEncoder.png(image)
            // A real 16-bit single-channel PNG: IHDR bit depth 16, colour type 0.
            #expect(ImageDecoder.sniff(bytes) == .png)
            #expect(bytes[24] == 16 && bytes[25] == 0, "IHDR bit depth \(bytes[24]), colour type \(bytes[25])")
            let path = dir.file("depth-\(w)x\(h).png")
            try ImageEncoder.write(bytes, to: path)
            let back = try ImageDecoder.decode16(path: path)
            try #require(back.width == w && back.height == h, "read back as \(back.width)x\(back.height)")
            let differing = image.pixels.indices.first { back.pixels[$0] != image.pixels[$0] }
            #expect(differing == nil, "\(w)x\(h): sample \(differing ?? 0) wrote \(image.pixels[differing ?? 0]), read \(back.pixels[differing ?? 0])")
        }
        let edges = try ImageDecoder.decode16(bytes: ImageEncoder.png(GrayImage16(width: 12, height: 1, pixels: Self.edgeValues)))
        #expect(edges.pixels == Self.edgeValues)
    }

    @Test("The 8-bit reader sees the 16-bit PNG as the samples scaled to 8 bits")
    func pngReadAsGray() throws {
        let image = Self.pattern(width: 12, height: 1)
        let gray = try ImageDecoder.decode(bytes: ImageEncoder.png(image)).image
        for i in image.pixels.indices {
            #expect(abs(Double(gray.pixels[i]) - Double(image.pixels[i]) / 257) <= 1, "sample \(i): \(image.pixels[i]) read as \(gray.pixels[i])")
        }
    }

    @Test("A hand-made 16-bit PNG gives its big-endian samples; 8-bit gray gives its bytes")
    func handmade() throws {
        let samples: [UInt16] = [0, 1, 255, 256, 65535, 0xABCD]
        let row = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let png16 = HandmadePNG.make(width: 3, height: 2, bitDepth: 16, colorType: 0, rows: [Array(row[0..<6]), Array(row[6...])])
        #expect(try ImageDecoder.decode16(bytes: png16).pixels == samples)
        // gAMA 1.0 (linear) leaves the samples alone too.
        let ihdrEnd = 8 + 25
        let linear = Array(png16[..<ihdrEnd]) + HandmadePNG.chunk("gAMA", HandmadePNG.be32(100_000)) + Array(png16[ihdrEnd...])
        #expect(try ImageDecoder.decode16(bytes: linear).pixels == samples)
        let png8 = HandmadePNG.make(width: 4, height: 1, bitDepth: 8, colorType: 0, rows: [[0, 1, 128, 255]])
        #expect(try ImageDecoder.decode16(bytes: png8).pixels == [0, 1, 128, 255])
    }

    @Test("16-bit PGM samples are read as stored, 8-bit PGM samples are not rescaled")
    func pgm() throws {
        let image = Self.pattern(width: 13, height: 7)
        let bytes = ImageEncoder.pgm(image)
        #expect(Array(bytes.prefix(14)) == Array("P5\n13 7\n65535\n".utf8) && bytes.count == 14 + 2 * 13 * 7)
        #expect(try ImageDecoder.decode16(bytes: bytes) == image)
        let header = Array("P5\n# old capture\n6 1\n65535\n".utf8)
        let samples: [UInt16] = [0, 1, 255, 256, 65535, 1000]
        #expect(try ImageDecoder.decode16(bytes: header + samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }).pixels == samples)
        #expect(try ImageDecoder.decode16(bytes: Array("P5 3 1 15 ".utf8) + [0, 7, 15]).pixels == [0, 7, 15])
    }

    @Test("Colour, alpha, palette, JPEG and gamma-tagged 16-bit PNGs are refused")
    func refusals() throws {
        Self.expectUnsupported(HandmadePNG.make(width: 1, height: 1, bitDepth: 16, colorType: 2, rows: [[0, 1, 0, 2, 0, 3]]), "16-bit RGB")
        Self.expectUnsupported(HandmadePNG.make(width: 1, height: 1, bitDepth: 8, colorType: 4, rows: [[10, 255]]), "gray+alpha")
        Self.expectUnsupported(HandmadePNG.make(width: 2, height: 1, bitDepth: 8, colorType: 3, rows: [[0, 1]], palette: [0, 0, 0, 9, 9, 9]), "palette")
        let jpeg = try ImageEncoder.jpeg(GrayImage(width: 8, height: 8, filledWith: 90))
        Self.expectUnsupported(jpeg, "JPEG")
        let png16 = HandmadePNG.make(width: 1, height: 1, bitDepth: 16, colorType: 0, rows: [[0x12, 0x34]])
        let ihdrEnd = 8 + 25
        for tag in [HandmadePNG.chunk("gAMA", HandmadePNG.be32(45_455)), HandmadePNG.chunk("sRGB", [0])] {
            Self.expectUnsupported(Array(png16[..<ihdrEnd]) + tag + Array(png16[ihdrEnd...]), "16-bit PNG with \(tag[4...7])")
        }
        do {
            _ = try ImageDecoder.decode16(bytes: Array(png16.prefix(png16.count - 20)))
            Issue.record("a truncated 16-bit PNG decoded")
        } catch {
            #expect(error.kind == .truncated || error.kind == .corrupt, "\(error)")
        }
    }
}
