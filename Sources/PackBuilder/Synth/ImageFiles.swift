import Foundation

import VPSImageIO

/// Writes rendered images to disk: frames as JPEG (libjpeg-turbo through
/// VPSImageIO), depth as 16-bit binary PGM (P5, maxval 65535, big-endian),
/// which OpenCV reads with IMREAD_ANYDEPTH.
enum ImageFiles {
    static let frameExtension = "jpg"
    static let depthExtension = "pgm"
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
        var data = Data("P5\n\(width) \(height)\n65535\n".utf8)
        data.reserveCapacity(data.count + millimetres.count * 2)
        for v in millimetres {
            data.append(UInt8(v >> 8))
            data.append(UInt8(v & 0xFF))
        }
        try BuildError.write(data, to: url, what: "depth image")
    }

}

/// Reading 16-bit depth images.
enum DepthImage {
    /// Reads a 16-bit depth image: raw units (multiply by the capture's depth scale).
    static func read(_ url: URL) throws(BuildError) -> (width: Int, height: Int, values: [UInt16]) {
        let data = try BuildError.read(url, what: "depth image")
        let bytes = [UInt8](data)
        var fields: [String] = []
        var i = 0
        while fields.count < 4 && i < bytes.count {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            if i < bytes.count, bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                continue
            }
            var token = ""
            while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) {
                token.append(Character(UnicodeScalar(bytes[i])))
                i += 1
            }
            fields.append(token)
        }
        i += 1
        guard fields.count == 4, fields[0] == "P5", let w = Int(fields[1]), let h = Int(fields[2]), let maxval = Int(fields[3]), w > 0, h > 0 else {
            throw .badData("the depth image \(url.path) is not a binary PGM")
        }
        let bpp = maxval > 255 ? 2 : 1
        guard bytes.count - i >= w * h * bpp else { throw .badData("the depth image \(url.path) is truncated") }
        var values = [UInt16](repeating: 0, count: w * h)
        for k in 0..<(w * h) {
            values[k] = bpp == 2 ? UInt16(bytes[i + 2 * k]) << 8 | UInt16(bytes[i + 2 * k + 1]) : UInt16(bytes[i + k])
        }
        return (w, h, values)
    }
}
