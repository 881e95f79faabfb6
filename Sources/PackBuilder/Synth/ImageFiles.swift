import Foundation

import VPSImageIO

/// Writes rendered images to disk: frames as JPEG (libjpeg-turbo through
/// VPSImageIO), depth as 16-bit gray PNG (libpng, samples as stored), which
/// OpenCV reads with IMREAD_ANYDEPTH.
enum ImageFiles {
    static let frameExtension = "jpg"
    static let depthExtension = "png"
    static let jpegQuality = 95

    static func writeFrame(_ frame: RenderedFrame, to url: URL) throws(BuildError) {
        try encode(to: url) { () throws(ImageError) in
            try ImageEncoder.jpeg(RGBImage(width: frame.width, height: frame.height, pixels: frame.rgb), quality: jpegQuality)
        }
    }

    static func writeGray(_ pixels: [UInt8], width: Int, height: Int, to url: URL) throws(BuildError) {
        try encode(to: url) { () throws(ImageError) in
            try ImageEncoder.jpeg(GrayImage(width: width, height: height, pixels: pixels), quality: jpegQuality)
        }
    }

    private static func encode(to url: URL, _ make: () throws(ImageError) -> [UInt8]) throws(BuildError) {
        let bytes: [UInt8]
        do {
            bytes = try make()
        } catch {
            throw .io("cannot encode the image \(url.path): \(error.reason)")
        }
        try BuildError.write(Data(bytes), to: url, what: "image")
    }

    static func writeDepth(_ millimetres: [UInt16], width: Int, height: Int, to url: URL) throws(BuildError) {
        try encode(to: url) { () throws(ImageError) in
            try ImageEncoder.png(GrayImage16(width: width, height: height, pixels: millimetres))
        }
    }
}

/// Reading 16-bit depth images: 16-bit gray PNG, or 16-bit binary PGM as
/// older synthetic captures hold (VPSImageIO's raw-sample reader).
enum DepthImage {
    /// Reads a 16-bit depth image: raw units (multiply by the capture's depth scale).
    static func read(_ url: URL) throws(BuildError) -> (width: Int, height: Int, values: [UInt16]) {
        let image: GrayImage16
        do {
            image = try ImageDecoder.decode16(path: url.path)
        } catch {
            throw error.kind == .io ? .io("cannot read the depth image \(url.path): \(error.reason)")
                : .badData("the depth image \(url.path) cannot be decoded: \(error.reason)")
        }
        return (image.width, image.height, image.pixels)
    }
}
