public import Foundation
import VPSArchive
import VPSCrypto

/// Reads a `.vpspack` archive with full validation, streaming every file in bounded blocks.
///
/// Opening reads and checks manifest.json (the first entry) and the caps of
/// ``ArchiveLimits``; ``readFiles(blockSize:onBlock:onFileEnd:)`` then walks the
/// remaining entries, refusing anything but regular files with safe, listed,
/// unique paths, counting every byte actually read (declared sizes are never
/// trusted) and checking each file's length and SHA-256 against the manifest.
///
/// ```swift
/// let reader = try PackArchiveReader(path: "demo.vpspack")
/// try reader.readFiles(onBlock: { file, bytes in sink(bytes) }, onFileEnd: { file in })
/// ```
public final class PackArchiveReader {
    /// The validated manifest.
    public let manifest: Manifest
    /// manifest.json exactly as stored in the archive.
    public let manifestData: Data
    /// The archive file.
    public let path: String
    public let limits: ArchiveLimits
    private let reader: ArchiveReader
    private var consumed = false

    /// Opens `path` and reads and validates its manifest.
    ///
    /// - Throws: ``PackFormatError`` when the archive is not tar + zstd, its first
    ///   entry is not a sound manifest.json, or the manifest exceeds `limits`.
    public init(path: String, limits: ArchiveLimits = .standard) throws(PackFormatError) {
        self.path = path
        self.limits = limits
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(path: path)
        } catch {
            // EILSEQ is libarchive's "not a format I know": bad data, not an I/O failure.
            if error.code == EILSEQ { throw .wrongContainer("\(path) is not a .vpspack archive (tar compressed with zstd): \(error.message)") }
            throw .io("cannot open the archive \(path): \(error.message)")
        }
        self.reader = reader
        let next: ArchiveEntry?
        do { next = try reader.nextEntry() } catch { throw Self.archiveFailure(error) }
        guard let first = next else { throw .manifest("the archive is empty: manifest.json is missing") }
        guard reader.isZstdCompressed else {
            throw .wrongContainer("the archive is compressed with '\(reader.compressionName)'; a .vpspack is tar compressed with zstd")
        }
        guard first.path == Manifest.entryName else { throw .manifestNotFirst(found: first.path) }
        guard first.kind == .regular else { throw .notRegularFile(first.path, type: first.kind.description) }
        if let declared = first.declaredSize, declared > Int64(Manifest.maximumEncodedSize) {
            throw .manifest("manifest.json declares \(declared) bytes, over the \(Manifest.maximumEncodedSize)-byte limit")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { raw in try reader.read(into: raw) }
            } catch let error as ArchiveError {
                throw Self.archiveFailure(error)
            } catch {
                throw .io(String(describing: error))
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
            guard data.count <= Manifest.maximumEncodedSize else {
                throw .manifest("manifest.json is over the \(Manifest.maximumEncodedSize)-byte limit")
            }
        }
        manifestData = data
        manifest = try Manifest.decode(data)
        try limits.check(manifest)
    }

    /// Streams every file of the archive, validating as it goes.
    ///
    /// For each entry, `onBlock` receives its bytes in blocks of exactly
    /// `blockSize` bytes (the last one shorter); `onFileEnd` runs once the
    /// entry's length and SHA-256 match the manifest. Call this once.
    ///
    /// - Parameters:
    ///   - blockSize: the size of the one buffer used, and of every block but each file's last.
    ///   - onBlock: receives the manifest record and a block; the bytes are valid only during the call.
    ///   - onFileEnd: called after a file checked out.
    /// - Throws: ``PackFormatError`` for the first problem found, or what a callback threw.
    public func readFiles(
        blockSize: Int = 1 << 20,
        onBlock: (Manifest.File, UnsafeRawBufferPointer) throws -> Void,
        onFileEnd: (Manifest.File) throws -> Void
    ) throws {
        precondition(!consumed, "PackArchiveReader.readFiles may run once")
        consumed = true
        let listed = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var seen = Set<String>()
        var entryCount = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let next: ArchiveEntry?
            do { next = try reader.nextEntry() } catch { throw Self.archiveFailure(error) }
            guard let entry = next else { break }
            entryCount += 1
            guard entryCount <= limits.maximumEntryCount else { throw PackFormatError.tooManyEntries(limit: limits.maximumEntryCount) }
            guard entry.kind == .regular else {
                throw PackFormatError.notRegularFile(entry.path, type: entry.kind.description)
            }
            try PackPath.check(entry.path)
            if entry.path == Manifest.entryName { throw PackFormatError.duplicateEntry(entry.path) }
            guard let file = listed[entry.path] else { throw PackFormatError.unlistedEntry(entry.path) }
            guard seen.insert(entry.path).inserted else { throw PackFormatError.duplicateEntry(entry.path) }
            if let declared = entry.declaredSize, declared != file.length {
                throw PackFormatError.lengthMismatch(entry.path, expected: file.length, actual: declared)
            }
            var hasher = SHA256()
            var length: Int64 = 0
            var filled = 0
            while true {
                let n: Int
                do {
                    n = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                } catch {
                    throw Self.archiveFailure(error)
                }
                filled += n
                length += Int64(n)
                // Never trust the header: stop as soon as the bytes exceed the manifest length.
                guard length <= file.length else {
                    throw PackFormatError.lengthMismatch(entry.path, expected: file.length, actual: length)
                }
                if filled == blockSize || (n == 0 && filled > 0) {
                    let block = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
                    hasher.update(block)
                    try onBlock(file, block)
                    filled = 0
                }
                if n == 0 { break }
            }
            guard length == file.length else {
                throw PackFormatError.lengthMismatch(entry.path, expected: file.length, actual: length)
            }
            let digest = hasher.finalize().hex
            guard digest == file.sha256.lowercased() else {
                throw PackFormatError.hashMismatch(entry.path, expected: file.sha256.lowercased(), actual: digest)
            }
            try onFileEnd(file)
        }
        for file in manifest.files where !seen.contains(file.path) {
            throw PackFormatError.missingEntry(file.path)
        }
    }

    static func archiveFailure(_ error: ArchiveError) -> PackFormatError {
        .corrupt(error.message)
    }
}

@available(*, unavailable)
extension PackArchiveReader: Sendable {}

/// A pack read whole from an archive after full validation: ``PackContents`` for archives.
public struct ArchivePack: PackContents, Sendable {
    public let manifest: Manifest
    /// manifest.json exactly as stored.
    public let manifestData: Data
    private let files: [String: Data]

    /// Reads and validates the archive at `path`, keeping every file in memory.
    ///
    /// - Throws: ``PackFormatError`` for the first problem found.
    public init(path: String, limits: ArchiveLimits = .standard) throws(PackFormatError) {
        let reader = try PackArchiveReader(path: path, limits: limits)
        var files: [String: Data] = [:]
        do {
            try reader.readFiles(
                onBlock: { file, bytes in files[file.path, default: Data()].append(contentsOf: bytes) },
                onFileEnd: { file in if files[file.path] == nil { files[file.path] = Data() } }
            )
        } catch let error as PackFormatError {
            throw error
        } catch {
            throw .io(String(describing: error))
        }
        self.manifest = reader.manifest
        self.manifestData = reader.manifestData
        self.files = files
    }

    public func data(at path: String) throws -> Data {
        guard let data = files[path] else { throw PackFormatError.noSuchFile(path) }
        return data
    }
}
