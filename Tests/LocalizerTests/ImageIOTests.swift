import Foundation
import Testing
@testable import VPSImageIO

@Suite("ImageIO")
struct ImageIOTests {
    /// A smooth pattern with some edges, which JPEG keeps well.
    static func pattern(width: Int, height: Int) -> GrayImage {
        var image = GrayImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let wave: Double = 60 * sin(Double(x) / 9) * cos(Double(y) / 13)
                let checker: Double = (x / 40 + y / 40) % 2 == 0 ? 20 : -20
                image[x, y] = UInt8(max(0, min(255, 128 + wave + checker)))
            }
        }
        return image
    }

    static func meanAbsoluteError(_ a: GrayImage, _ b: GrayImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var sum = 0
        for i in a.pixels.indices { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(sum) / Double(a.pixels.count)
    }

    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Double { 0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b) }

    @Test("A grayscale JPEG written to a file decodes back closely")
    func jpegGrayFile() throws {
        let dir = try TemporaryDirectory()
        let image = Self.pattern(width: 160, height: 120)
        try ImageEncoder.write(try ImageEncoder.jpeg(image, quality: 95), to: dir.file("a.jpg"))
        let decoded = try ImageDecoder.decode(path: dir.file("a.jpg"))
        #expect(decoded.format == .jpeg)
        #expect(decoded.image.width == 160 && decoded.image.height == 120 && decoded.reduction == 1)
        #expect(Self.meanAbsoluteError(decoded.image, image) < 2.5)
    }

    @Test("A colour JPEG decodes straight to its luminance")
    func jpegColor() throws {
        var rgb = [UInt8](repeating: 0, count: 64 * 48 * 3)
        for i in 0..<(64 * 48) {
            let x = i % 64, y = i / 64
            rgb[3 * i] = UInt8(x * 4)
            rgb[3 * i + 1] = UInt8(y * 5)
            rgb[3 * i + 2] = 200
        }
        let image = RGBImage(width: 64, height: 48, pixels: rgb)
        let decoded = try ImageDecoder.decode(bytes: try ImageEncoder.jpeg(image, quality: 98))
        var error = 0.0
        for i in 0..<(64 * 48) {
            error += abs(Double(decoded.image.pixels[i]) - Self.luma(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]))
        }
        #expect(error / Double(64 * 48) < 2.5)
    }

    @Test("A large JPEG is reduced in the DCT domain to the working size")
    func jpegScaled() throws {
        let image = Self.pattern(width: 1600, height: 1200)
        let bytes = try ImageEncoder.jpeg(image, quality: 95)
        let decoded = try ImageDecoder.decode(bytes: bytes, maxDimension: 400)
        #expect(decoded.reduction == 4)
        #expect(decoded.scale == 0.25)
        #expect(decoded.image.width == 400 && decoded.image.height == 300)
        #expect(decoded.originalWidth == 1600 && decoded.originalHeight == 1200)
        let reference = ImageDecoder.boxReduce(try ImageDecoder.decode(bytes: bytes).image, by: 4)
        #expect(Self.meanAbsoluteError(decoded.image, reference) < 3)
        // Not reduced below the working size: 1600 / 2 = 800 >= 700, 1600 / 4 = 400 < 700.
        #expect(try ImageDecoder.decode(bytes: bytes, maxDimension: 700).reduction == 2)
        #expect(try ImageDecoder.decode(bytes: bytes, maxDimension: 1600).reduction == 1)
    }

    @Test("PNG gray and RGB written by the encoder decode exactly")
    func pngRoundTrip() throws {
        let gray = Self.pattern(width: 77, height: 33)
        let decoded = try ImageDecoder.decode(bytes: try ImageEncoder.png(gray))
        #expect(decoded.format == .png)
        #expect(decoded.image == gray)
        let rgb = RGBImage(gray)
        #expect(try ImageDecoder.decode(bytes: try ImageEncoder.png(rgb)).image == gray)
    }

    @Test("A larger PNG is reduced by box averaging like a JPEG")
    func pngScaled() throws {
        let gray = Self.pattern(width: 803, height: 401)
        let decoded = try ImageDecoder.decode(bytes: try ImageEncoder.png(gray), maxDimension: 200)
        #expect(decoded.reduction == 4)
        #expect(decoded.image.width == 201 && decoded.image.height == 101)
        let block = (0..<4).flatMap { y in (0..<4).map { x in Int(gray[4 + x, 8 + y]) } }
        #expect(Int(decoded.image[1, 2]) == (block.reduce(0, +) + 8) / 16)
    }

    @Test("16-bit gray PNG is scaled to 8 bits without gamma change")
    func png16() throws {
        let rows: [[UInt8]] = (0..<4).map { y in (0..<6).flatMap { x in [UInt8(x * 40 + y), 0x80] } }
        let decoded = try ImageDecoder.decode(bytes: HandmadePNG.make(width: 6, height: 4, bitDepth: 16, colorType: 0, rows: rows))
        #expect(decoded.image.width == 6 && decoded.image.height == 4)
        for y in 0..<4 {
            for x in 0..<6 {
                let expected = Double(UInt16(x * 40 + y) << 8 | 0x80) / 257
                #expect(abs(Double(decoded.image[x, y]) - expected) <= 1, "pixel (\(x), \(y))")
            }
        }
    }

    @Test("RGBA, gray+alpha, 16-bit RGB and palette PNGs decode to gray, alpha dropped")
    func pngColorTypes() throws {
        // RGBA with varied alpha: the colour is kept whatever the alpha.
        let rgba: [[UInt8]] = [[255, 0, 0, 255, 0, 255, 0, 0], [0, 0, 255, 128, 100, 100, 100, 7]]
        let a = try ImageDecoder.decode(bytes: HandmadePNG.make(width: 2, height: 2, bitDepth: 8, colorType: 6, rows: rgba)).image
        #expect(abs(Double(a[0, 0]) - Self.luma(255, 0, 0)) <= 2)
        #expect(abs(Double(a[1, 0]) - Self.luma(0, 255, 0)) <= 2)
        #expect(abs(Double(a[0, 1]) - Self.luma(0, 0, 255)) <= 2)
        #expect(abs(Int(a[1, 1]) - 100) <= 1)
        let ga = try ImageDecoder.decode(bytes: HandmadePNG.make(width: 2, height: 1, bitDepth: 8, colorType: 4, rows: [[10, 255, 220, 0]])).image
        #expect(ga.pixels == [10, 220])
        let rgb16: [[UInt8]] = [[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0]]
        let c = try ImageDecoder.decode(bytes: HandmadePNG.make(width: 2, height: 1, bitDepth: 16, colorType: 2, rows: rgb16)).image
        #expect(c.pixels == [255, 0])
        // 2-bit palette: indices 0, 1, 2, 3 -> black, white, red, gray 90.
        let palette: [UInt8] = [0, 0, 0, 255, 255, 255, 255, 0, 0, 90, 90, 90]
        let p = try ImageDecoder.decode(bytes: HandmadePNG.make(width: 4, height: 1, bitDepth: 2, colorType: 3, rows: [[0b0001_1011]], palette: palette)).image
        #expect(p[0, 0] == 0 && p[1, 0] == 255 && abs(Int(p[3, 0]) - 90) <= 1)
        #expect(abs(Double(p[2, 0]) - Self.luma(255, 0, 0)) <= 2)
    }

    @Test("Binary PGM, 8 and 16 bit, with header comments")
    func pgm() throws {
        let gray = Self.pattern(width: 31, height: 17)
        #expect(try ImageDecoder.decode(bytes: ImageEncoder.pgm(gray)).image == gray)
        let header = Array("P5\n# made by hand\n3 2\n# maxval next\n65535\n".utf8)
        let samples: [UInt16] = [0, 65535, 32896, 257, 1000, 65000]
        let body = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let decoded = try ImageDecoder.decode(bytes: header + body)
        #expect(decoded.format == .pgm)
        #expect(decoded.image.pixels == samples.map { UInt8((Int($0) * 255 + 32767) / 65535) })
        let small = try ImageDecoder.decode(bytes: Array("P5 2 1 15 ".utf8) + [0, 15]).image
        #expect(small.pixels == [0, 255])
    }

    // MARK: Errors

    static func expectError(_ kind: ImageError.Kind, _ bytes: [UInt8], maxPixels: Int = ImageDecoder.defaultMaxPixels, _ comment: Comment) {
        do {
            let decoded = try ImageDecoder.decode(bytes: bytes, source: "test.img", maxPixels: maxPixels)
            Issue.record("decoded \(decoded.image.width)x\(decoded.image.height) instead of failing: \(comment)")
        } catch {
            #expect(error.kind == kind, "\(comment): \(error)")
            #expect(error.description.hasPrefix("test.img: "))
        }
    }

    @Test("Empty, unknown and unsupported inputs are refused clearly")
    func unsupported() throws {
        Self.expectError(.empty, [], "empty")
        Self.expectError(.unsupported, Array("GIF89a........".utf8), "GIF")
        Self.expectError(.unsupported, Array("P2\n2 2\n255\n1 2 3 4\n".utf8), "ASCII PGM")
        Self.expectError(.truncated, [0xFF, 0xD8], "two bytes")
        let cmyk = try JPEGEncoder.encode([UInt8](repeating: 100, count: 16 * 16 * 4), width: 16, height: 16, components: 4, quality: 90)
        Self.expectError(.unsupported, cmyk, "CMYK JPEG")
        #expect(throws: ImageError.self) { try ImageDecoder.decode(path: "/nonexistent/dir/q.jpg") }
        do {
            _ = try ImageDecoder.decode(path: "/nonexistent/dir/q.jpg")
        } catch {
            #expect(error.kind == .io && error.source == "/nonexistent/dir/q.jpg")
        }
    }

    @Test("Truncated JPEG, PNG and PGM files are reported as truncated")
    func truncated() throws {
        let image = Self.pattern(width: 64, height: 64)
        let jpeg = try ImageEncoder.jpeg(image)
        Self.expectError(.truncated, Array(jpeg.prefix(jpeg.count / 2)), "half a JPEG")
        Self.expectError(.truncated, Array(jpeg.prefix(jpeg.count - 2)), "JPEG without EOI")
        let png = try ImageEncoder.png(image)
        Self.expectError(.truncated, Array(png.prefix(png.count / 2)), "half a PNG")
        Self.expectError(.truncated, Array(png.prefix(20)), "PNG cut in the header")
        let pgm = ImageEncoder.pgm(image)
        Self.expectError(.truncated, Array(pgm.prefix(pgm.count - 1)), "PGM one byte short")
        Self.expectError(.truncated, Array("P5 64 64".utf8), "PGM header only")
    }

    @Test("Corrupt data is refused")
    func corrupt() throws {
        var png = try ImageEncoder.png(Self.pattern(width: 32, height: 32))
        png[40] ^= 0xFF // inside IDAT: CRC mismatch
        #expect(throws: ImageError.self) { try ImageDecoder.decode(bytes: png) }
        Self.expectError(.corrupt, Array("P5 2 1 15 ".utf8) + [1, 200], "PGM sample above maxval")
        Self.expectError(.corrupt, Array("P5 2 1 0 ".utf8) + [1, 2], "PGM maxval 0")
        var jpeg = try ImageEncoder.jpeg(Self.pattern(width: 16, height: 16))
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 9] = 0 // no components
        Self.expectError(.corrupt, jpeg, "JPEG with zero components")
    }

    @Test("Decompression bombs are refused from the header, before allocating")
    func bombs() throws {
        // A PNG header announcing 100000 x 100000 pixels, with a tiny body.
        let bomb = HandmadePNG.make(width: 100_000, height: 100_000, bitDepth: 8, colorType: 0, rows: [[0]])
        Self.expectError(.tooLarge, bomb, "PNG bomb")
        // A real JPEG whose start-of-frame is patched to 60000 x 60000.
        var jpeg = try ImageEncoder.jpeg(Self.pattern(width: 16, height: 16))
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60 // height 60000
        jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60 // width 60000
        Self.expectError(.tooLarge, jpeg, "JPEG bomb")
        Self.expectError(.tooLarge, Array("P5 50000 50000 255 ".utf8) + [0], "PGM bomb")
        // The cap is configurable.
        Self.expectError(.tooLarge, try ImageEncoder.png(Self.pattern(width: 40, height: 40)), maxPixels: 1000, "PNG over a small cap")
    }
}
