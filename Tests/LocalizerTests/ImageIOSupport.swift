import Foundation

/// Hand-made PNG files for the decoder tests: any colour type and bit depth the
/// encoder under test cannot write, built from the PNG specification with
/// stored (uncompressed) deflate blocks.
enum HandmadePNG {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    /// zlib stream of stored blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let final: UInt8 = i + n >= data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    /// A PNG with `colorType` (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA) and
    /// `bitDepth`; `rows` are the raw scanlines without filter bytes.
    static func make(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]], palette: [UInt8]? = nil) -> [UInt8] {
        var ihdr = be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [bitDepth, colorType, 0, 0, 0]
        var raw: [UInt8] = []
        for r in rows { raw.append(0); raw += r }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", ihdr)
        if let palette { png += chunk("PLTE", palette) }
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }
}

/// A scratch directory removed when the value is dropped.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
