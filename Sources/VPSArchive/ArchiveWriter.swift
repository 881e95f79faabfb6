internal import CLibArchive
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A writer of tar archives (restricted pax) with optional zstd compression.
///
/// Write an entry with ``begin(_:)``, its bytes with ``write(_:)``, then the next
/// entry; ``finish()`` completes the archive and fsyncs the file. Headers are
/// written exactly as given (so tests can build hostile archives too).
///
/// ```swift
/// let writer = try ArchiveWriter(path: "out.tar.zst", compression: .zstd(level: 3))
/// try writer.begin(ArchiveEntry(path: "a.txt", kind: .regular, declaredSize: 5))
/// try writer.write(Array("hello".utf8))
/// try writer.finish()
/// ```
///
/// Owns one `struct archive` (`archive_write_new`) and the file descriptor, both freed in `deinit`.
public final class ArchiveWriter {
    /// Outer compression of the tar stream.
    public enum Compression: Sendable, Equatable {
        case none
        case zstd(level: Int)
        case gzip
    }

    private let handle: OpaquePointer
    private var descriptor: Int32
    private var finished = false
    /// The archive file being written.
    public let path: String

    /// Creates (or truncates) `path`, mode 0644, and prepares the tar stream.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be created.
    public init(path: String, compression: Compression) throws(ArchiveError) {
        guard let a = archive_write_new() else {
            throw ArchiveError(code: 12, message: "archive_write_new failed: out of memory", path: path)
        }
        handle = a
        self.path = path
        descriptor = -1
        archive_write_set_format_pax_restricted(a)
        // No padding of the last block: the archive ends right after the tar end-of-archive marker.
        archive_write_set_bytes_in_last_block(a, 1)
        switch compression {
        case .none:
            archive_write_add_filter_none(a)
        case .gzip:
            archive_write_add_filter_gzip(a)
        case .zstd(let level):
            archive_write_add_filter_zstd(a)
            archive_write_set_filter_option(a, "zstd", "compression-level", String(level))
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ArchiveError(code: errno, message: "cannot create the archive: \(String(cString: strerror(errno)))", path: path)
        }
        descriptor = fd
        guard archive_write_open_fd(a, fd) == ARCHIVE_OK else { throw lastError("cannot start the archive") }
    }

    deinit {
        archive_write_free(handle)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Writes an entry header (`archive_write_header`); its data follows through ``write(_:)``.
    ///
    /// - Throws: ``ArchiveError`` when libarchive refuses the header.
    public func begin(_ entry: ArchiveEntry) throws(ArchiveError) {
        guard let e = archive_entry_new() else {
            throw ArchiveError(code: 12, message: "archive_entry_new failed: out of memory", path: path)
        }
        defer { archive_entry_free(e) }
        archive_entry_set_pathname_utf8(e, entry.path)
        let typeBits: UInt32
        switch entry.kind {
        case .regular, .hardLink, .unknown: typeBits = FileTypeBits.regular
        case .directory: typeBits = FileTypeBits.directory
        case .symbolicLink: typeBits = FileTypeBits.symbolicLink
        case .characterDevice: typeBits = FileTypeBits.characterDevice
        case .blockDevice: typeBits = FileTypeBits.blockDevice
        case .fifo: typeBits = FileTypeBits.fifo
        case .socket: typeBits = FileTypeBits.socket
        }
        archive_entry_set_filetype(e, typeBits)
        archive_entry_set_perm(e, mode_t(entry.permissions))
        archive_entry_set_mtime(e, time_t(entry.modificationTime), 0)
        archive_entry_set_uid(e, 0)
        archive_entry_set_gid(e, 0)
        if entry.kind == .symbolicLink, let target = entry.linkTarget { archive_entry_set_symlink_utf8(e, target) }
        if entry.kind == .hardLink, let target = entry.linkTarget { archive_entry_set_hardlink_utf8(e, target) }
        if let size = entry.declaredSize { archive_entry_set_size(e, la_int64_t(size)) }
        let status = archive_write_header(handle, e)
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN else { throw lastError("cannot write the header of '\(entry.path)'") }
    }

    /// Appends bytes to the current entry (`archive_write_data`).
    ///
    /// - Throws: ``ArchiveError`` on a write failure.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = archive_write_data(handle, base, left)
            guard n > 0 else { throw lastError("cannot write entry data") }
            base += n
            left -= n
        }
    }

    /// Appends the bytes of an array to the current entry.
    public func write(_ bytes: [UInt8]) throws(ArchiveError) {
        let result: Result<Void, ArchiveError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ArchiveError) in try write(raw) }
        }
        try result.get()
    }

    /// Ends the archive (`archive_write_close`), then fsyncs and closes the file.
    ///
    /// - Throws: ``ArchiveError`` when flushing or syncing fails.
    public func finish() throws(ArchiveError) {
        guard !finished else { return }
        finished = true
        guard archive_write_close(handle) == ARCHIVE_OK else { throw lastError("cannot finish the archive") }
        guard fsync(descriptor) == 0 else {
            throw ArchiveError(code: errno, message: "fsync failed: \(String(cString: strerror(errno)))", path: path)
        }
        close(descriptor)
        descriptor = -1
    }

    private func lastError(_ what: String) -> ArchiveError {
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
        return ArchiveError(code: archive_errno(handle), message: "\(what): \(message)", path: path)
    }
}

@available(*, unavailable)
extension ArchiveWriter: Sendable {}
