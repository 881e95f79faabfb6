/// Why a pack archive or its manifest was refused.
///
/// Every case names the entry or field at fault, so the one sentence of
/// ``description`` is enough to find it.
public enum PackFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// manifest.json is missing, too large, not JSON, or has a wrong field.
    case manifest(String)
    /// The manifest's format version is not one this build reads.
    case unsupportedFormat(Int)
    /// The first archive entry is not manifest.json.
    case manifestNotFirst(found: String)
    /// An absolute path, a `..` component, an empty component, a control character.
    case unsafePath(String, reason: String)
    /// A symbolic link, hard link, device, directory, FIFO or socket entry.
    case notRegularFile(String, type: String)
    /// Two entries with one name.
    case duplicateEntry(String)
    /// An archive entry that manifest.json does not list.
    case unlistedEntry(String)
    /// A file manifest.json lists that the archive lacks.
    case missingEntry(String)
    /// One entry larger than the per-entry cap (or than its manifest length).
    case entryTooLarge(String, limit: Int64)
    /// The entries together larger than the total cap.
    case totalTooLarge(limit: Int64)
    /// More entries than the entry-count cap.
    case tooManyEntries(limit: Int)
    /// An entry whose length differs from its manifest length.
    case lengthMismatch(String, expected: Int64, actual: Int64)
    /// An entry whose SHA-256 differs from its manifest hash.
    case hashMismatch(String, expected: String, actual: String)
    /// The archive itself is damaged: truncated, bad zstd frame, bad tar header.
    case corrupt(String)
    /// The archive is not tar + zstd.
    case wrongContainer(String)
    /// A file could not be read or written.
    case io(String)
    /// A path asked of a pack that the pack does not hold.
    case noSuchFile(String)

    public var description: String {
        switch self {
        case .manifest(let why): return why
        case .unsupportedFormat(let f):
            return "the pack is format \(f); this vpspack reads format \(PackFormatVersion.current)"
        case .manifestNotFirst(let found): return "the archive's first entry is '\(found)', expected manifest.json"
        case .unsafePath(let p, let reason): return "archive entry '\(p)' is refused: \(reason)"
        case .notRegularFile(let p, let type): return "archive entry '\(p)' is a \(type), only regular files are allowed"
        case .duplicateEntry(let p): return "archive entry '\(p)' appears twice"
        case .unlistedEntry(let p): return "archive entry '\(p)' is not listed in manifest.json"
        case .missingEntry(let p): return "manifest.json lists '\(p)' but the archive has no such entry"
        case .entryTooLarge(let p, let limit): return "archive entry '\(p)' is larger than \(limit) bytes"
        case .totalTooLarge(let limit): return "the archive's entries add up to more than \(limit) bytes"
        case .tooManyEntries(let limit): return "the archive has more than \(limit) entries"
        case .lengthMismatch(let p, let expected, let actual):
            return "archive entry '\(p)' is \(actual) bytes, manifest.json says \(expected)"
        case .hashMismatch(let p, let expected, let actual):
            return "archive entry '\(p)' has SHA-256 \(actual), manifest.json says \(expected)"
        case .corrupt(let why): return "the archive is damaged: \(why)"
        case .wrongContainer(let why): return why
        case .io(let why): return why
        case .noSuchFile(let p): return "the pack has no file '\(p)'"
        }
    }
}

extension PackFormatError {
    /// The manifest path a per-file error names, if any.
    public var filePath: String? {
        switch self {
        case .unsafePath(let p, _), .notRegularFile(let p, _), .duplicateEntry(let p), .unlistedEntry(let p),
             .missingEntry(let p), .entryTooLarge(let p, _), .lengthMismatch(let p, _, _), .hashMismatch(let p, _, _),
             .noSuchFile(let p):
            return p
        default:
            return nil
        }
    }
}
