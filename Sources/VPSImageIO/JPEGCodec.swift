internal import CJPEG

/// One libjpeg decompressor; owns the C state and frees it in `deinit`.
final class JPEGDecoder {
    private let state: UnsafeMutablePointer<vps_jpeg_decoder>

    private init?() {
        guard let state = vps_jpeg_decoder_new() else { return nil }
        self.state = state
    }

    deinit { vps_jpeg_decoder_free(state) }

    private func message() -> String {
        withUnsafeBytes(of: &state.pointee.err.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private func check(_ code: Int32, source: String, during what: String) throws(ImageError) {
        switch code {
        case Int32(VPS_JPEG_OK): return
        case Int32(VPS_JPEG_TRUNCATED):
            throw ImageError(.truncated, source: source, "the JPEG data ends before the image does (\(message()))")
        default:
            let text = message()
            if text.contains("Premature end") || text.contains("Empty input") {
                throw ImageError(.truncated, source: source, "the JPEG data ends \(what) (\(text))")
            }
            throw ImageError(.corrupt, source: source, "invalid JPEG data \(what) (\(text))")
        }
    }

    /// Decodes JPEG bytes to grayscale, reduced by 1/2, 1/4 or 1/8 in the DCT domain
    /// when `maxDimension` allows (jpeg_read_header, jpeg_start_decompress, jpeg_read_scanlines).
    static func decode(_ bytes: UnsafeRawBufferPointer, source: String, maxDimension: Int?, maxPixels: Int) throws(ImageError) -> DecodedImage {
        guard let decoder = JPEGDecoder() else { throw ImageError(.io, source: source, "out of memory for the JPEG decoder") }
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        try decoder.check(vps_jpeg_read_header(decoder.state, base, UInt(bytes.count)), source: source, during: "in its header")
        let width = Int(decoder.state.pointee.cinfo.image_width)
        let height = Int(decoder.state.pointee.cinfo.image_height)
        guard width > 0, height > 0 else { throw ImageError(.corrupt, source: source, "the JPEG header gives a \(width)x\(height) image") }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels else {
            throw ImageError(.tooLarge, source: source, "the JPEG header announces \(width)x\(height) pixels, more than the limit of \(maxPixels) pixels")
        }
        if vps_jpeg_is_cmyk(decoder.state) != 0 {
            throw ImageError(.unsupported, source: source, "CMYK JPEG images are not supported; convert the image to RGB or grayscale")
        }
        let d = ImageDecoder.reduction(width: width, height: height, maxDimension: maxDimension)
        try decoder.check(vps_jpeg_start_gray(decoder.state, UInt32(d)), source: source, during: "while starting to decode")
        let outWidth = Int(decoder.state.pointee.cinfo.output_width)
        let outHeight = Int(decoder.state.pointee.cinfo.output_height)
        guard outWidth > 0, outHeight > 0, decoder.state.pointee.cinfo.output_components == 1 else {
            throw ImageError(.corrupt, source: source, "the JPEG decoder produced an unexpected output layout")
        }
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight)
        var code: Int32 = 0
        pixels.withUnsafeMutableBufferPointer { buffer in
            code = vps_jpeg_read_pixels(decoder.state, buffer.baseAddress, outWidth)
        }
        try decoder.check(code, source: source, during: "in its image data")
        return DecodedImage(image: GrayImage(width: outWidth, height: outHeight, pixels: pixels), format: .jpeg,
                            originalWidth: width, originalHeight: height, reduction: d)
    }
}

/// JPEG compression through libjpeg (jpeg_start_compress, jpeg_write_scanlines).
enum JPEGEncoder {
    /// Compresses interleaved 8-bit samples with `components` = 1 (gray), 3 (RGB) or 4 (CMYK).
    static func encode(_ pixels: [UInt8], width: Int, height: Int, components: Int, quality: Int) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, width <= 65_500, height <= 65_500 else {
            throw ImageError(.encode, source: "<memory>", "cannot write a \(width)x\(height) JPEG (each side must be 1...65500)")
        }
        precondition(pixels.count == width * height * components)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 200)
        let q = Int32(min(max(quality, 1), 100))
        let code = pixels.withUnsafeBufferPointer { src in
            vps_jpeg_compress(src.baseAddress, UInt32(width), UInt32(height), width * components, Int32(components), q, &out, &size, &message)
        }
        defer { vps_jpeg_free_buffer(out) }
        guard code == Int32(VPS_JPEG_OK), let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError(.encode, source: "<memory>", "JPEG compression failed (\(text))")
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}
