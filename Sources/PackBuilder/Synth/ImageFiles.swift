import Foundation

/// Writes rendered images to disk.
///
/// Until the image codecs land in VPSImageIO this writes binary Netpbm:
/// 8-bit grey PGM for colour frames (luma) and 16-bit big-endian PGM for depth.
enum ImageFiles {
    static let frameExtension = "pgm"
    static let depthExtension = "pgm"

    static func writeFrame(_ frame: RenderedFrame, to url: URL) throws(BuildError) {
        var data = Data("P5\n\(frame.width) \(frame.height)\n255\n".utf8)
        data.append(contentsOf: frame.gray)
        try BuildError.write(data, to: url, what: "image")
    }

    static func writeGray(_ pixels: [UInt8], width: Int, height: Int, to url: URL) throws(BuildError) {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: pixels)
        try BuildError.write(data, to: url, what: "image")
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

    /// Reads a depth image written by ``writeDepth(_:width:height:to:)``: raw 16-bit units.
    static func readDepth(_ url: URL) throws(BuildError) -> (width: Int, height: Int, values: [UInt16]) {
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
