internal import CLibArchive
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A streaming reader of a tar archive file, optionally compressed with zstd.
///
/// Call ``nextEntry()`` for each header, then ``read(into:)`` for that entry's
/// bytes, block by block, into a buffer the caller owns. Memory stays bounded
/// whatever the archive declares.
///
/// ```swift
/// let reader = try ArchiveReader(path: "pack.vpspack")
/// var buffer = [UInt8](repeating: 0, count: 1 << 16)
/// while let entry = try reader.nextEntry() {
///     while try buffer.withUnsafeMutableBytes({ try reader.read(into: $0) }) > 0 { }
/// }
/// ```
///
/// Owns one `struct archive` (`archive_read_new`), freed in `deinit`.
public final class ArchiveReader {
    private let handle: OpaquePointer
    /// The archive file.
    public let path: String

    /// Opens `path` for reading (`archive_read_open_filename`), accepting tar
    /// formats and the zstd filter only (plus no filter at all).
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened.
    public init(path: String) throws(ArchiveError) {
        guard let a = archive_read_new() else {
            throw ArchiveError(code: 12, message: "archive_read_new failed: out of memory", path: path)
        }
        handle = a
        self.path = path
        archive_read_support_format_tar(a)
        archive_read_support_filter_zstd(a)
        guard archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK else {
            // For a file that cannot be opened, the system's reason ("No such file or directory")
            // says more than libarchive's "Failed to open"; anything else keeps libarchive's words.
            let code = archive_errno(a)
            let systemCodes: Set<Int32> = [ENOENT, EACCES, EPERM, EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG, EMFILE, ENFILE, EIO]
            guard systemCodes.contains(code), let reason = strerror(code) else { throw lastError("cannot open the archive") }
            throw ArchiveError(code: code, message: String(cString: reason), path: path)
        }
    }

    deinit {
        archive_read_free(handle)
    }

    /// True when the archive's outer compression is zstd (`archive_filter_code(a, 0)`).
    ///
    /// Known only once the first header has been read.
    public var isZstdCompressed: Bool {
        archive_filter_code(handle, 0) == ARCHIVE_FILTER_ZSTD
    }

    /// The name of the outer compression, such as "zstd" or "none".
    public var compressionName: String {
        guard let name = archive_filter_name(handle, 0) else { return "unknown" }
        return String(cString: name)
    }

    /// Reads the next header (`archive_read_next_header`); nil at the end of the archive.
    ///
    /// - Throws: ``ArchiveError`` for a damaged or truncated archive.
    public func nextEntry() throws(ArchiveError) -> ArchiveEntry? {
        var entryPointer: OpaquePointer?
        let status = archive_read_next_header(handle, &entryPointer)
        if status == ARCHIVE_EOF { return nil }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry = entryPointer else {
            throw lastError("cannot read the next entry header")
        }
        let path: String
        if let utf8 = archive_entry_pathname_utf8(entry) {
            path = String(cString: utf8)
        } else if let raw = archive_entry_pathname(entry) {
            path = String(cString: raw)
        } else {
            path = ""
        }
        let kind: ArchiveEntry.Kind
        var linkTarget: String?
        if let hard = archive_entry_hardlink(entry) {
            kind = .hardLink
            linkTarget = String(cString: hard)
        } else {
            switch UInt32(archive_entry_filetype(entry)) & FileTypeBits.mask {
            case FileTypeBits.regular: kind = .regular
            case FileTypeBits.directory: kind = .directory
            case FileTypeBits.symbolicLink:
                kind = .symbolicLink
                if let target = archive_entry_symlink(entry) { linkTarget = String(cString: target) }
            case FileTypeBits.characterDevice: kind = .characterDevice
            case FileTypeBits.blockDevice: kind = .blockDevice
            case FileTypeBits.fifo: kind = .fifo
            case FileTypeBits.socket: kind = .socket
            default: kind = .unknown
            }
        }
        let size: Int64? = archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : nil
        return ArchiveEntry(
            path: path, kind: kind, declaredSize: size, linkTarget: linkTarget,
            permissions: UInt32(archive_entry_perm(entry)), modificationTime: Int64(archive_entry_mtime(entry))
        )
    }

    /// Reads up to `buffer.count` bytes of the current entry (`archive_read_data`).
    ///
    /// - Returns: the number of bytes read; 0 at the end of the entry.
    /// - Throws: ``ArchiveError`` for a damaged or truncated archive.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = archive_read_data(handle, base, buffer.count)
        guard n >= 0 else { throw lastError("cannot read entry data") }
        return n
    }

    private func lastError(_ what: String) -> ArchiveError {
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
        return ArchiveError(code: archive_errno(handle), message: "\(what): \(message)", path: path)
    }
}

@available(*, unavailable)
extension ArchiveReader: Sendable {}
