import Foundation

/// Writes images: PNG (gray or RGB) for debug images and previews, 16-bit gray
/// PNG for depth maps, JPEG for synthetic frames, PGM for tests and tools.
///
/// ```swift
/// let png = try ImageEncoder.png(image)
/// try ImageEncoder.write(png, to: "debug.png")
/// ```
public enum ImageEncoder {
    /// A grayscale PNG (png_image_write_to_memory).
    public static func png(_ image: GrayImage) throws(ImageError) -> [UInt8] {
        try PNGCodec.encode(image.pixels, width: image.width, height: image.height, channels: 1)
    }

    /// An RGB PNG (png_image_write_to_memory).
    public static func png(_ image: RGBImage) throws(ImageError) -> [UInt8] {
        try PNGCodec.encode(image.pixels, width: image.width, height: image.height, channels: 3)
    }

    /// A 16-bit grayscale PNG with the samples as given (gAMA 1.0, no scaling):
    /// ``ImageDecoder/decode16(path:maxPixels:)`` reads them back exactly.
    public static func png(_ image: GrayImage16) throws(ImageError) -> [UInt8] {
        try PNGCodec.encode16(image)
    }

    /// A baseline grayscale JPEG at `quality` 1...100 (libjpeg jpeg_write_scanlines).
    public static func jpeg(_ image: GrayImage, quality: Int = 92) throws(ImageError) -> [UInt8] {
        try JPEGEncoder.encode(image.pixels, width: image.width, height: image.height, components: 1, quality: quality)
    }

    /// A baseline YCbCr JPEG from RGB at `quality` 1...100.
    public static func jpeg(_ image: RGBImage, quality: Int = 92) throws(ImageError) -> [UInt8] {
        try JPEGEncoder.encode(image.pixels, width: image.width, height: image.height, components: 3, quality: quality)
    }

    /// A binary PGM (P5, maxval 255).
    public static func pgm(_ image: GrayImage) -> [UInt8] {
        PGMCodec.encode(image)
    }

    /// A 16-bit binary PGM (P5, maxval 65535, big-endian samples).
    public static func pgm(_ image: GrayImage16) -> [UInt8] {
        PGMCodec.encode16(image)
    }

    /// Writes bytes to `path`, replacing the file.
    public static func write(_ bytes: [UInt8], to path: String) throws(ImageError) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw ImageError(.io, source: path, "cannot write the file (\(ImageDecoder.reason(error)))")
        }
    }
}
