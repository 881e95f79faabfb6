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
    /// Glyphs 3 pixels wide and 5 high, one row per element, the high bit of 3 on the left.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 3, 1, 7], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 2, 2, 2], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        ".": [0, 0, 0, 0, 2], "m": [0, 0, 7, 7, 5], " ": [0, 0, 0, 0, 0],
    ]

    /// Writes `text` with the built-in digit font, each font pixel `scale` pixels wide; unknown characters are left blank.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ c: SIMD3<UInt8>) {
        var left = x
        for ch in text {
            for (row, bits) in (Self.glyphs[ch] ?? [0, 0, 0, 0, 0]).enumerated() {
                for column in 0..<3 where bits & (4 >> column) != 0 {
                    rect(left + column * scale, y + row * scale, left + (column + 1) * scale, y + (row + 1) * scale, c)
                }
            }
            left += 4 * scale
        }
    }
}
