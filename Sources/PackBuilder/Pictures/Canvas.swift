/// A small RGB raster with a white background.
struct Canvas {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 255, count: width * height * 3)
    }

    mutating func blend(_ x: Int, _ y: Int, _ c: SIMD3<UInt8>, alpha: Double) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        for ch in 0..<3 {
            pixels[i + ch] = UInt8((Double(pixels[i + ch]) * (1 - alpha) + Double(c[ch]) * alpha).rounded())
        }
    }

    mutating func rect(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: SIMD3<UInt8>) {
        for y in max(0, y0)..<max(max(0, y0), min(height, y1)) {
            for x in max(0, x0)..<max(max(0, x0), min(width, x1)) { blend(x, y, c, alpha: 1) }
        }
    }

    mutating func disc(_ cx: Int, _ cy: Int, radius r: Int, _ c: SIMD3<UInt8>) {
        for y in (cy - r)...(cy + r) {
            for x in (cx - r)...(cx + r) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r { blend(x, y, c, alpha: 1) }
        }
    }

    mutating func line(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: SIMD3<UInt8>) {
        let n = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in 0...n {
            blend(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n, c, alpha: 1)
        }
    }
}

extension Canvas {
    /// Glyphs 5 pixels high, one row per element, the leftmost pixel in the bit `1 << (width - 1)`:
    /// digits, `.` and space 3 wide, `m` 5 wide.
    static let glyphs: [Character: (width: Int, rows: [UInt8])] = [
        "0": (3, [7, 5, 5, 5, 7]), "1": (3, [2, 6, 2, 2, 7]), "2": (3, [7, 1, 7, 4, 7]), "3": (3, [7, 1, 3, 1, 7]),
        "4": (3, [5, 5, 7, 1, 1]), "5": (3, [7, 4, 7, 1, 7]), "6": (3, [7, 4, 7, 5, 7]), "7": (3, [7, 1, 2, 2, 2]),
        "8": (3, [7, 5, 7, 5, 7]), "9": (3, [7, 5, 7, 1, 7]), ".": (1, [0, 0, 0, 0, 1]), " ": (2, [0, 0, 0, 0, 0]),
        "m": (5, [0, 0, 0b11010, 0b10101, 0b10101]),
    ]

    /// Writes `text` with the built-in font, each font pixel `scale` pixels wide, one blank
    /// column between glyphs; characters without a glyph are skipped.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ c: SIMD3<UInt8>) {
        var left = x
        for ch in text {
            guard let glyph = Self.glyphs[ch] else { continue }
            for (row, bits) in glyph.rows.enumerated() {
                for column in 0..<glyph.width where bits & (1 << (glyph.width - 1 - column)) != 0 {
                    rect(left + column * scale, y + row * scale, left + (column + 1) * scale, y + (row + 1) * scale, c)
                }
            }
            left += (glyph.width + 1) * scale
        }
    }
}
