internal import CPNG

/// PNG through libpng's simplified API (png_image), which reports errors in the
/// image structure instead of longjmp-ing out.
enum PNGCodec {
    /// Decodes any PNG to 8-bit gray; alpha is dropped, not composited.
    /// Returns the image and the declared size.
    static func decode(_ bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> (GrayImage, Int, Int) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let (width, height) = try readHeader(&image, bytes, source: source, maxPixels: maxPixels)
        // Read the samples as stored, without libpng's gamma-aware colour-to-gray
        // conversion: 8-bit (and palette) images as sRGB bytes, 16-bit images as
        // 16-bit samples. Gray is then computed like libjpeg's luminance, so a
        // PNG and a JPEG of the same picture give the same gray image.
        let linear = image.format & UInt32(PNG_FORMAT_FLAG_LINEAR) != 0
        let color = image.format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0
        let alpha = image.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
        image.format = (color ? UInt32(PNG_FORMAT_FLAG_COLOR) : 0) | (alpha ? UInt32(PNG_FORMAT_FLAG_ALPHA) : 0)
            | (linear ? UInt32(PNG_FORMAT_FLAG_LINEAR) : 0)
        image.flags = 0
        let channels = (color ? 3 : 1) + (alpha ? 1 : 0)
        let count = width * height
        var gray = [UInt8](repeating: 0, count: count)
        if linear {
            var buffer = [UInt16](repeating: 0, count: count * channels)
            let ok = buffer.withUnsafeMutableBytes { out in png_image_finish_read(&image, nil, out.baseAddress, Int32(width * channels), nil) }
            guard ok != 0 else { throw error(image, source: source, during: "in its image data") }
            for i in 0..<count {
                let p = i * channels
                var v = color ? luma(UInt32(buffer[p]), UInt32(buffer[p + 1]), UInt32(buffer[p + 2])) : UInt32(buffer[p])
                if alpha {
                    // Linear output with alpha is premultiplied: undo it.
                    let a = UInt32(buffer[p + channels - 1])
                    v = a == 0 ? 0 : min(65535, (v * 65535 + a / 2) / a)
                }
                gray[i] = UInt8((v + 128) / 257)
            }
        } else {
            if !color && !alpha {
                let ok = gray.withUnsafeMutableBytes { out in png_image_finish_read(&image, nil, out.baseAddress, Int32(width), nil) }
                guard ok != 0 else { throw error(image, source: source, during: "in its image data") }
                return (GrayImage(width: width, height: height, pixels: gray), width, height)
            }
            var buffer = [UInt8](repeating: 0, count: count * channels)
            let ok = buffer.withUnsafeMutableBytes { out in png_image_finish_read(&image, nil, out.baseAddress, Int32(width * channels), nil) }
            guard ok != 0 else { throw error(image, source: source, during: "in its image data") }
            for i in 0..<count {
                let p = i * channels
                gray[i] = color ? UInt8(luma(UInt32(buffer[p]), UInt32(buffer[p + 1]), UInt32(buffer[p + 2]))) : buffer[p]
            }
        }
        return (GrayImage(width: width, height: height, pixels: gray), width, height)
    }

    /// ITU-R BT.601 luminance, as libjpeg computes Y: 0.299 R + 0.587 G + 0.114 B, rounded.
    @inline(__always)
    static func luma(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 {
        (19595 &* r &+ 38470 &* g &+ 7471 &* b &+ 32768) >> 16
    }

    private static func error(_ image: png_image, source: String, during what: String) -> ImageError {
        var copy = image.message
        let text = withUnsafeBytes(of: &copy) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        let lower = text.lowercased()
        if lower.contains("end of data") || lower.contains("eof") || lower.contains("not enough") || lower.contains("truncat")
            || lower.contains("read beyond") || lower.contains("unexpected end") {
            return ImageError(.truncated, source: source, "the PNG data ends before the image does (\(text))")
        }
        return ImageError(.corrupt, source: source, "invalid PNG data \(what) (\(text))")
    }

    /// Reads the header into `image` and checks the size against `maxPixels`.
    /// Returns the declared width and height.
    private static func readHeader(_ image: inout png_image, _ bytes: UnsafeRawBufferPointer, source: String,
                                   maxPixels: Int) throws(ImageError) -> (Int, Int) {
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            throw error(image, source: source, during: "in its header")
        }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw ImageError(.corrupt, source: source, "the PNG header gives a \(width)x\(height) image") }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels else {
            throw ImageError(.tooLarge, source: source, "the PNG header announces \(width)x\(height) pixels, more than the limit of \(maxPixels) pixels")
        }
        return (width, height)
    }

    /// Decodes a single-channel PNG to its raw samples: 16-bit files as stored,
    /// files of 1 to 8 bits as their 8-bit value. Colour, alpha and palette
    /// images are refused, and so are 16-bit files tagged gamma-encoded (a `gAMA`
    /// other than 1.0, or `sRGB`/`iCCP`), whose samples libpng would convert.
    static func decode16(_ bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> GrayImage16 {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let (width, height) = try readHeader(&image, bytes, source: source, maxPixels: maxPixels)
        let flags = image.format
        if flags & UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_COLORMAP) != 0 {
            throw ImageError(.unsupported, source: source, "the PNG is a colour or palette image; a 16-bit image must be single-channel gray")
        }
        if flags & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0 {
            throw ImageError(.unsupported, source: source, "the PNG has an alpha channel; a 16-bit image must be single-channel gray")
        }
        let count = width * height
        image.flags = 0
        if flags & UInt32(PNG_FORMAT_FLAG_LINEAR) != 0 {
            if let tag = gammaTag(bytes) {
                throw ImageError(.unsupported, source: source, "the 16-bit PNG is tagged gamma-encoded (\(tag)), so its samples would not be read as stored")
            }
            // No gAMA (16-bit is then taken as linear) or gAMA 1.0: libpng hands the
            // samples over unchanged, in native byte order.
            image.format = UInt32(PNG_FORMAT_LINEAR_Y)
            var samples = [UInt16](repeating: 0, count: count)
            let ok = samples.withUnsafeMutableBytes { out in png_image_finish_read(&image, nil, out.baseAddress, Int32(width), nil) }
            guard ok != 0 else { throw error(image, source: source, during: "in its image data") }
            return GrayImage16(width: width, height: height, pixels: samples)
        }
        image.format = UInt32(PNG_FORMAT_GRAY)
        var gray = [UInt8](repeating: 0, count: count)
        let ok = gray.withUnsafeMutableBytes { out in png_image_finish_read(&image, nil, out.baseAddress, Int32(width), nil) }
        guard ok != 0 else { throw error(image, source: source, during: "in its image data") }
        return GrayImage16(width: width, height: height, pixels: gray.map { UInt16($0) })
    }

    /// The chunk before the image data that makes libpng's simplified reader
    /// convert 16-bit samples: `sRGB`, `iCCP`, or a `gAMA` other than 1.0. Nil when none.
    static func gammaTag(_ bytes: UnsafeRawBufferPointer) -> String? {
        var i = 8
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        while i + 8 <= bytes.count {
            let length = be32(i)
            let type = String(decoding: [bytes[i + 4], bytes[i + 5], bytes[i + 6], bytes[i + 7]], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { return nil }
            if type == "sRGB" || type == "iCCP" { return "an \(type) chunk" }
            if type == "gAMA", length == 4, i + 12 <= bytes.count {
                let gamma = be32(i + 8)
                if gamma != 100_000 { return "gAMA \(Double(gamma) / 100_000)" }
            }
            guard length >= 0, length <= bytes.count else { return nil }
            i += 12 + length
        }
        return nil
    }

    /// Compresses 16-bit gray samples as stored (png_image_write_to_memory with
    /// PNG_FORMAT_LINEAR_Y: a 16-bit gray PNG tagged gAMA 1.0, samples unchanged).
    static func encode16(_ image16: GrayImage16) throws(ImageError) -> [UInt8] {
        let width = image16.width, height = image16.height
        guard width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else {
            throw ImageError(.encode, source: "<memory>", "cannot write a \(width)x\(height) PNG")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_LINEAR_Y)
        defer { png_image_free(&image) }
        var size = 0
        let stride = Int32(width)
        let sized = image16.pixels.withUnsafeBytes { src in
            png_image_write_to_memory(&image, nil, &size, 0, src.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw encodeError(image) }
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { dst in
            image16.pixels.withUnsafeBytes { src in
                png_image_write_to_memory(&image, dst.baseAddress, &size, 0, src.baseAddress, stride, nil)
            }
        }
        guard ok != 0 else { throw encodeError(image) }
        return Array(out.prefix(size))
    }

    /// Compresses 8-bit samples, 1 (gray) or 3 (RGB) channels (png_image_write_to_memory).
    static func encode(_ pixels: [UInt8], width: Int, height: Int, channels: Int) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else {
            throw ImageError(.encode, source: "<memory>", "cannot write a \(width)x\(height) PNG")
        }
        precondition(pixels.count == width * height * channels)
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = channels == 3 ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        defer { png_image_free(&image) }
        var size = 0
        let stride = Int32(width * channels)
        let sized = pixels.withUnsafeBytes { src in
            png_image_write_to_memory(&image, nil, &size, 0, src.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw encodeError(image) }
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { dst in
            pixels.withUnsafeBytes { src in
                png_image_write_to_memory(&image, dst.baseAddress, &size, 0, src.baseAddress, stride, nil)
            }
        }
        guard ok != 0 else { throw encodeError(image) }
        return Array(out.prefix(size))
    }

    private static func encodeError(_ image: png_image) -> ImageError {
        var copy = image.message
        let text = withUnsafeBytes(of: &copy) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return ImageError(.encode, source: "<memory>", "PNG compression failed (\(text))")
    }
}
