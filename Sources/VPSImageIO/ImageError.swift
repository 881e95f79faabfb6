/// Why an image could not be read or written.
///
/// Each case names the file (or `<memory>` for in-memory data) and says what
/// is wrong in one sentence (``description``).
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened or read.
        case io
        /// Zero bytes.
        case empty
        /// The data ends before the image does.
        case truncated
        /// A format, colour space or depth this decoder does not read (CMYK JPEG, ASCII PGM, ...).
        case unsupported
        /// The header announces more pixels than the configured cap (a decompression bomb).
        case tooLarge
        /// The data is not a valid image of its format.
        case corrupt
        /// The encoder failed.
        case encode
    }

    public var kind: Kind
    /// The file path, or `<memory>` for data decoded from memory.
    public var source: String
    /// What is wrong, without the source.
    public var reason: String

    public init(_ kind: Kind, source: String, _ reason: String) {
        self.kind = kind
        self.source = source
        self.reason = reason
    }

    public var description: String { "\(source): \(reason)" }
}
