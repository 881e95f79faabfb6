/// Binary portable graymap (P5): `P5 <width> <height> <maxval>` then one
/// whitespace byte and the samples, 1 byte each when maxval < 256, else 2 bytes
/// big-endian. Comments (`#` to end of line) may appear between header fields.
enum PGMCodec {
    /// The header fields and the offset of the first sample byte, checked
    /// against the data length.
    static func header(_ bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> (width: Int, height: Int, maxval: Int, offset: Int) {
        var i = 2
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C }
        func field(_ name: String) throws(ImageError) -> Int {
            while i < bytes.count {
                if isSpace(bytes[i]) { i += 1 } else if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
                } else { break }
            }
            guard i < bytes.count else { throw ImageError(.truncated, source: source, "the PGM header ends before its \(name)") }
            var value = 0
            var digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                value = value * 10 + Int(bytes[i] - 0x30)
                digits += 1
                guard digits <= 9 else { throw ImageError(.corrupt, source: source, "the PGM \(name) has too many digits") }
                i += 1
            }
            guard digits > 0 else { throw ImageError(.corrupt, source: source, "the PGM \(name) is not a decimal number") }
            return value
        }
        let width = try field("width")
        let height = try field("height")
        let maxval = try field("maxval")
        guard width > 0, height > 0 else { throw ImageError(.corrupt, source: source, "the PGM header gives a \(width)x\(height) image") }
        guard (1...65535).contains(maxval) else { throw ImageError(.corrupt, source: source, "the PGM maxval \(maxval) is not in 1...65535") }
        guard width * height <= maxPixels else {
            throw ImageError(.tooLarge, source: source, "the PGM header announces \(width)x\(height) pixels, more than the limit of \(maxPixels) pixels")
        }
        guard i < bytes.count, isSpace(bytes[i]) else { throw ImageError(.truncated, source: source, "the PGM header is not followed by pixel data") }
        i += 1
        let sampleSize = maxval < 256 ? 1 : 2
        let needed = width * height * sampleSize
        guard bytes.count - i >= needed else {
            throw ImageError(.truncated, source: source, "the PGM data holds \(bytes.count - i) bytes of pixels, \(needed) are needed for \(width)x\(height)")
        }
        return (width, height, maxval, i)
    }

    /// Decodes to 8 bits, samples scaled from 0...maxval to 0...255.
    static func decode(_ bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> GrayImage {
        let (width, height, maxval, i) = try header(bytes, source: source, maxPixels: maxPixels)
        let sampleSize = maxval < 256 ? 1 : 2
        var pixels = [UInt8](repeating: 0, count: width * height)
        let half = maxval / 2
        for p in 0..<pixels.count {
            let v = sampleSize == 1 ? Int(bytes[i + p]) : Int(bytes[i + 2 * p]) << 8 | Int(bytes[i + 2 * p + 1])
            guard v <= maxval else { throw ImageError(.corrupt, source: source, "PGM sample \(p) is \(v), above maxval \(maxval)") }
            pixels[p] = maxval == 255 ? UInt8(v) : UInt8((v * 255 + half) / maxval)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Decodes to the samples as stored (not scaled by maxval).
    static func decode16(_ bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> GrayImage16 {
        let (width, height, maxval, i) = try header(bytes, source: source, maxPixels: maxPixels)
        let wide = maxval >= 256
        var samples = [UInt16](repeating: 0, count: width * height)
        for p in samples.indices {
            let v = wide ? UInt16(bytes[i + 2 * p]) << 8 | UInt16(bytes[i + 2 * p + 1]) : UInt16(bytes[i + p])
            guard Int(v) <= maxval else { throw ImageError(.corrupt, source: source, "PGM sample \(p) is \(v), above maxval \(maxval)") }
            samples[p] = v
        }
        return GrayImage16(width: width, height: height, pixels: samples)
    }

    /// A 16-bit binary PGM (P5, maxval 65535, big-endian samples).
    static func encode16(_ image: GrayImage16) -> [UInt8] {
        var out = Array("P5\n\(image.width) \(image.height)\n65535\n".utf8)
        out.reserveCapacity(out.count + 2 * image.pixels.count)
        for v in image.pixels {
            out.append(UInt8(v >> 8))
            out.append(UInt8(v & 0xFF))
        }
        return out
    }

    static func encode(_ image: GrayImage) -> [UInt8] {
        Array("P5\n\(image.width) \(image.height)\n255\n".utf8) + image.pixels
    }
}
