public import Foundation
import VPSArchive
import VPSCrypto

/// Writes a `.vpspack` archive from a folder holding `map/` and `attachments/`.
///
/// The manifest is generated: every regular file of the folder, sorted by
/// path, with its length and SHA-256. The archive holds manifest.json first,
/// then the files in manifest order, as restricted-pax tar entries (mode 0644,
/// owner 0:0, modification time = `created`), compressed with zstd. It is
/// written to a temporary file, fsynced and renamed into place.
///
/// ```swift
/// let manifest = try PackArchiveWriter.write(
///     folder: URL(fileURLWithPath: "site-src"), to: URL(fileURLWithPath: "demo.vpspack"),
///     tour: "demo", version: 3)
/// ```
public enum PackArchiveWriter {
    /// The zstd level of written archives.
    public static let compressionLevel = 3

    /// Writes the archive and returns its manifest.
    ///
    /// - Parameters:
    ///   - folder: a folder whose files all lie under `map/` or `attachments/`.
    ///   - output: the archive to create; replaced atomically when it exists.
    ///   - tour: the tour name (letters, digits, `.`, `_`, `-`).
    ///   - version: the positive pack version.
    ///   - created: the creation instant (whole seconds are kept).
    ///   - georeference: where the pack sits on Earth, if known.
    /// - Throws: ``PackFormatError`` naming the file that is not acceptable or could not be read or written.
    @discardableResult
    public static func write(
        folder: URL, to output: URL, tour: String, version: Int, created: Date = Date(),
        georeference: Manifest.Georeference? = nil, limits: ArchiveLimits = .standard
    ) throws(PackFormatError) -> Manifest {
        let created = Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down))
        let paths = try listFiles(folder)
        var files: [Manifest.File] = []
        for path in paths {
            let (length, digest) = try hashFile(folder.appendingPathComponent(path).path, limit: limits.maximumEntryLength, name: path)
            files.append(Manifest.File(path: path, length: length, sha256: digest))
        }
        let manifest = Manifest(tour: tour, version: version, created: created, georeference: georeference, files: files)
        try manifest.validate()
        try limits.check(manifest)

        let temporary = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            let writer = try ArchiveWriter(path: temporary.path, compression: .zstd(level: compressionLevel))
            let mtime = Int64(created.timeIntervalSince1970)
            let manifestBytes = Array(manifest.encoded())
            try writer.begin(ArchiveEntry(path: Manifest.entryName, kind: .regular, declaredSize: Int64(manifestBytes.count), modificationTime: mtime))
            try writer.write(manifestBytes)
            for file in manifest.files {
                try writer.begin(ArchiveEntry(path: file.path, kind: .regular, declaredSize: file.length, modificationTime: mtime))
                try copy(folder.appendingPathComponent(file.path).path, into: writer, expecting: file)
            }
            try writer.finish()
        } catch let error as ArchiveError {
            try? FileManager.default.removeItem(at: temporary)
            throw .io("cannot write \(output.path): \(error.message)")
        } catch let error as PackFormatError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .io("cannot write \(output.path): \(error)")
        }
        do {
            try DurableFile.moveIntoPlace(temporary, output)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .io("cannot move the archive into place at \(output.path): \(error.localizedDescription)")
        }
        DurableFile.syncDirectory(output.deletingLastPathComponent().path)
        return manifest
    }

    /// Every regular file under `folder`, as sorted `/`-separated relative paths.
    static func listFiles(_ folder: URL) throws(PackFormatError) -> [String] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .io("\(folder.path) is not a folder")
        }
        let root = folder.standardizedFileURL
        guard let walker = fm.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey], options: []) else {
            throw .io("cannot list \(folder.path)")
        }
        let base = root.path.hasSuffix("/") ? root.path : root.path + "/"
        var out: [String] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey])
            let relative = url.path.hasPrefix(base) ? String(url.path.dropFirst(base.count)) : url.path
            if values?.isSymbolicLink == true {
                throw .notRegularFile(relative, type: "symbolic link")
            }
            if values?.isDirectory == true { continue }
            guard values?.isRegularFile == true else { throw .notRegularFile(relative, type: "special file") }
            guard relative.hasPrefix("map/") || relative.hasPrefix("attachments/") else {
                throw .io("\(relative) in \(folder.path) is not under map/ or attachments/; a pack holds only those two folders")
            }
            out.append(relative)
        }
        return out.sorted()
    }

    static func hashFile(_ path: String, limit: Int64, name: String) throws(PackFormatError) -> (Int64, String) {
        let file = try FileBlockReader(path: path)
        var hasher = SHA256()
        var length: Int64 = 0
        while let block = try file.next() {
            hasher.update(block)
            length += Int64(block.count)
            guard length <= limit else { throw .entryTooLarge(name, limit: limit) }
        }
        return (length, hasher.finalize().hex)
    }

    static func copy(_ path: String, into writer: ArchiveWriter, expecting file: Manifest.File) throws {
        let input = try FileBlockReader(path: path)
        var hasher = SHA256()
        var length: Int64 = 0
        while let block = try input.next() {
            length += Int64(block.count)
            guard length <= file.length else { break }
            hasher.update(block)
            try writer.write(block)
        }
        guard length == file.length, hasher.finalize().hex == file.sha256 else {
            throw PackFormatError.io("\(path) changed while the archive was being written")
        }
    }
}
