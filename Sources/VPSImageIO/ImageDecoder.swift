public import Foundation

/// The image formats ``ImageDecoder`` reads, recognised by their leading bytes.
public enum ImageFormat: String, Sendable, Equatable {
    case jpeg
    case png
    /// Binary portable graymap (P5).
    case pgm
}

/// A decoded image and how it relates to the file's full-size image.
public struct DecodedImage: Sendable, Equatable {
    /// The grayscale pixels, possibly reduced (see ``reduction``).
    public var image: GrayImage
    public var format: ImageFormat
    /// The size the file declares.
    public var originalWidth: Int
    public var originalHeight: Int
    /// The reduction factor `d` (1, 2, 4 or 8): decoded pixel `(u, v)` covers the
    /// original pixels `[d*u, d*u + d) x [d*v, d*v + d)`, so its centre is at
    /// original coordinates `(d*(u + 0.5) - 0.5, d*(v + 0.5) - 0.5)`.
    public var reduction: Int
    /// `1 / reduction`: multiply focal lengths by it (and principal points as above).
    public var scale: Double { 1.0 / Double(reduction) }
}

/// Decodes JPEG, PNG and binary PGM files to 8-bit grayscale.
///
/// JPEG goes through libjpeg-turbo straight to grayscale (no colour conversion
/// of the full image) and, when asked for a working size much smaller than the
/// image, with DCT-domain scaling, which is far cheaper than decoding the full
/// image and resizing. PNG goes through libpng (1 to 16 bits; gray, gray+alpha,
/// RGB, RGBA, palette); alpha is dropped. PGM is read here (P5, maxval up to 65535).
///
/// ```swift
/// let decoded = try ImageDecoder.decode(path: "query.jpg", maxDimension: 1280)
/// print(decoded.image.width, decoded.reduction)
/// ```
public enum ImageDecoder {
    /// The default cap on the pixel count a header may announce (100 megapixels).
    public static let defaultMaxPixels = 100_000_000

    /// Reads and decodes an image file.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maxDimension: When given, the image is reduced by the largest power of two
    ///     (up to 8) that keeps its longer side at least `maxDimension` pixels.
    ///   - maxPixels: Images whose header announces more pixels are refused before
    ///     anything is allocated for them.
    /// - Throws: ``ImageError`` naming the file and the problem.
    public static func decode(path: String, maxDimension: Int? = nil, maxPixels: Int = defaultMaxPixels) throws(ImageError) -> DecodedImage {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw ImageError(.io, source: path, "cannot read the file (\(Self.reason(error)))")
        }
        return try decode(data: data, source: path, maxDimension: maxDimension, maxPixels: maxPixels)
    }

    /// Decodes an image held in memory; `source` names it in errors.
    public static func decode(data: Data, source: String = "<memory>", maxDimension: Int? = nil, maxPixels: Int = defaultMaxPixels) throws(ImageError) -> DecodedImage {
        let result: Result<DecodedImage, ImageError> = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                try decode(bytes: raw, source: source, maxDimension: maxDimension, maxPixels: maxPixels)
            }
        }
        return try result.get()
    }

    /// Decodes an image held in memory; `source` names it in errors.
    public static func decode(bytes: [UInt8], source: String = "<memory>", maxDimension: Int? = nil, maxPixels: Int = defaultMaxPixels) throws(ImageError) -> DecodedImage {
        let result: Result<DecodedImage, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> DecodedImage in
                try decode(bytes: raw, source: source, maxDimension: maxDimension, maxPixels: maxPixels)
            }
        }
        return try result.get()
    }

    /// Reads a single-channel image as its raw samples, for depth maps: 16-bit
    /// (or 1 to 8 bit) gray PNG and binary PGM of any maxval, values as stored
    /// (never rescaled, no gamma). JPEG, colour, alpha and palette images, and
    /// 16-bit PNGs tagged gamma-encoded, are refused.
    ///
    /// ```swift
    /// let depth = try ImageDecoder.decode16(path: "depth/frame_00000.png")
    /// let metres = Double(depth[x, y]) * 0.001
    /// ```
    public static func decode16(path: String, maxPixels: Int = defaultMaxPixels) throws(ImageError) -> GrayImage16 {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw ImageError(.io, source: path, "cannot read the file (\(Self.reason(error)))")
        }
        return try decode16(data: data, source: path, maxPixels: maxPixels)
    }

    /// ``decode16(path:maxPixels:)`` for an image held in memory; `source` names it in errors.
    public static func decode16(data: Data, source: String = "<memory>", maxPixels: Int = defaultMaxPixels) throws(ImageError) -> GrayImage16 {
        let result: Result<GrayImage16, ImageError> = data.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> GrayImage16 in try decode16(bytes: raw, source: source, maxPixels: maxPixels) }
        }
        return try result.get()
    }

    /// ``decode16(path:maxPixels:)`` for an image held in memory; `source` names it in errors.
    public static func decode16(bytes: [UInt8], source: String = "<memory>", maxPixels: Int = defaultMaxPixels) throws(ImageError) -> GrayImage16 {
        let result: Result<GrayImage16, ImageError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ImageError) -> GrayImage16 in try decode16(bytes: raw, source: source, maxPixels: maxPixels) }
        }
        return try result.get()
    }

    static func decode16(bytes: UnsafeRawBufferPointer, source: String, maxPixels: Int) throws(ImageError) -> GrayImage16 {
        guard !bytes.isEmpty else { throw ImageError(.empty, source: source, "the file is empty") }
        switch sniff(bytes) {
        case .png:
            return try PNGCodec.decode16(bytes, source: source, maxPixels: maxPixels)
        case .pgm:
            return try PGMCodec.decode16(bytes, source: source, maxPixels: maxPixels)
        case .jpeg:
            throw ImageError(.unsupported, source: source, "a JPEG has no 16-bit samples; a 16-bit image must be a gray PNG or a binary PGM")
        case nil:
            throw ImageError(.unsupported, source: source, "not a PNG or binary PGM file (unknown leading bytes)")
        }
    }

    /// The format the leading bytes announce, or nil.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [UInt8(ascii: "P"), UInt8(ascii: "5")]) { return .pgm }
        return nil
    }

    static func decode(bytes: UnsafeRawBufferPointer, source: String, maxDimension: Int?, maxPixels: Int) throws(ImageError) -> DecodedImage {
        guard !bytes.isEmpty else { throw ImageError(.empty, source: source, "the file is empty") }
        if let maxDimension, maxDimension < 1 {
            throw ImageError(.unsupported, source: source, "the requested maximum dimension \(maxDimension) is not positive")
        }
        switch sniff(bytes) {
        case .jpeg:
            return try JPEGDecoder.decode(bytes, source: source, maxDimension: maxDimension, maxPixels: maxPixels)
        case .png:
            let (image, w, h) = try PNGCodec.decode(bytes, source: source, maxPixels: maxPixels)
            return reduced(image, format: .png, originalWidth: w, originalHeight: h, maxDimension: maxDimension)
        case .pgm:
            let image = try PGMCodec.decode(bytes, source: source, maxPixels: maxPixels)
            return reduced(image, format: .pgm, originalWidth: image.width, originalHeight: image.height, maxDimension: maxDimension)
        case nil:
            if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]) {
                throw ImageError(.unsupported, source: source, "netpbm format P\(Character(UnicodeScalar(bytes[1]))) is not supported; only binary PGM (P5) is")
            }
            if bytes.count < 3 {
                throw ImageError(.truncated, source: source, "the file is only \(bytes.count) bytes long, too short for any image")
            }
            throw ImageError(.unsupported, source: source, "not a JPEG, PNG or binary PGM file (unknown leading bytes)")
        }
    }

    /// The reduction factor for an image of this size: the largest of 1, 2, 4, 8
    /// that keeps the longer side at least `maxDimension`.
    public static func reduction(width: Int, height: Int, maxDimension: Int?) -> Int {
        guard let maxDimension else { return 1 }
        let longer = max(width, height)
        var d = 1
        while d < 8, longer / (d * 2) >= maxDimension { d *= 2 }
        return d
    }

    static func reduced(_ image: GrayImage, format: ImageFormat, originalWidth: Int, originalHeight: Int, maxDimension: Int?) -> DecodedImage {
        let d = reduction(width: image.width, height: image.height, maxDimension: maxDimension)
        let out = d == 1 ? image : boxReduce(image, by: d)
        return DecodedImage(image: out, format: format, originalWidth: originalWidth, originalHeight: originalHeight, reduction: d)
    }

    /// Averages `d` x `d` blocks; the result is `ceil(w/d)` x `ceil(h/d)` like libjpeg's scaling.
    static func boxReduce(_ image: GrayImage, by d: Int) -> GrayImage {
        let w = (image.width + d - 1) / d
        let h = (image.height + d - 1) / d
        var out = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            for v in 0..<h {
                let y0 = v * d, y1 = min(y0 + d, image.height)
                for u in 0..<w {
                    let x0 = u * d, x1 = min(x0 + d, image.width)
                    var sum = 0
                    for y in y0..<y1 {
                        let row = y * image.width
                        for x in x0..<x1 { sum &+= Int(src[row + x]) }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    out[v * w + u] = UInt8((sum + n / 2) / n)
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(describing: POSIXError(code).localizedDescription)
        }
        return ns.localizedDescription
    }
}
