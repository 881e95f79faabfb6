public import Foundation
import PackFormat

/// A server that is a local directory in DESIGN.md's static layout (sideloading, tests).
///
/// The ETag of a file is built from its inode, size and modification time, so a
/// file replaced between two attempts makes a resume start over, as a changed
/// ETag does over HTTP.
public struct DirectoryTransport: Transport {
    /// The server's root directory.
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    private func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    public func fetch(_ path: String, limit: Int64) throws(TransportError) -> Data {
        let file = url(path)
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            if !FileManager.default.fileExists(atPath: root.path) {
                throw .unavailable("the server directory \(root.path) does not exist")
            }
            throw .notFound("the server \(root.path) has no \(path)")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: Int(min(limit, Int64(Int32.max)) + 1)) ?? Data()
            guard data.count <= limit else { throw TransportError.tooLarge(file.path, limit: limit) }
            return data
        } catch let error as TransportError {
            throw error
        } catch {
            throw .io("cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    /// The strong validator of the file at `path`, if it exists.
    public func etag(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url(path).path) else { return nil }
        let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(UInt64(mtime * 1_000_000), radix: 16))\""
    }

    public func stream(
        _ path: String, from offset: Int64, ifRange: String?, maxLength: Int64,
        restart: (StreamResponse) throws -> Void, sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse {
        let file = url(path)
        let input: FileBlockReader
        do {
            input = try FileBlockReader(path: file.path)
        } catch {
            throw TransportError.notFound("the server \(root.path) has no \(path)")
        }
        let tag = etag(path)
        let size = ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0
        var start = offset
        if offset > 0 && (ifRange.map { $0 != tag } ?? false || offset > size) {
            start = 0
        }
        let response = StreamResponse(startOffset: start, etag: tag)
        // A body from byte 0 is announced before its first byte, so the caller can record the ETag.
        if start == 0 { try restart(response) }
        var position = start
        do {
            try input.seek(to: start)
            while position < maxLength, let block = try input.next(maximum: Int(min(Int64(1 << 20), maxLength - position))) {
                position += Int64(block.count)
                try sink(block)
            }
        } catch let error as PackFormatError {
            throw TransportError.io(error.description)
        }
        return response
    }
}
