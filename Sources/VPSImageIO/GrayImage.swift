/// An 8-bit grayscale image, rows top to bottom, `width` bytes per row, no padding.
///
/// The pixel at column `x`, row `y` is `pixels[y * width + x]`.
public struct GrayImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    /// An image from its pixels; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "GrayImage: \(pixels.count) pixels for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A `width` x `height` image filled with `value`.
    public init(width: Int, height: Int, filledWith value: UInt8 = 0) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: value, count: width * height))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}

/// An 8-bit RGB image, 3 bytes per pixel (R, G, B), rows top to bottom, no padding.
public struct RGBImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    /// An image from its interleaved pixels; `pixels.count` must be `3 * width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == 3 * width * height, "RGBImage: \(pixels.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The gray image promoted to RGB (for drawing coloured marks on it).
    public init(_ gray: GrayImage) {
        var out = [UInt8](repeating: 0, count: 3 * gray.pixels.count)
        for i in gray.pixels.indices {
            let v = gray.pixels[i]
            out[3 * i] = v
            out[3 * i + 1] = v
            out[3 * i + 2] = v
        }
        self.init(width: gray.width, height: gray.height, pixels: out)
    }
}

/// A 16-bit single-channel image with its samples as stored (no scaling, no
/// gamma), rows top to bottom, no padding: depth maps, for instance.
///
/// The sample at column `x`, row `y` is `pixels[y * width + x]`.
public struct GrayImage16: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt16]

    /// An image from its samples; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [UInt16]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "GrayImage16: \(pixels.count) samples for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt16 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
