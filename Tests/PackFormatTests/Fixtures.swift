import Foundation
import TestSupport
import PackFormat
import VPSArchive
import VPSCrypto

/// A fresh temporary directory, removed when the value is dropped.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> URL { url.appendingPathComponent(name) }
}

enum Fixtures {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        TestBytes.pseudoRandom(count, seed: seed)
    }

    /// A pack folder with a few map files and one attachment.
    static func folder(in dir: TemporaryDirectory, name: String = "src", seed: UInt64 = 1) throws -> URL {
        let root = dir.path(name)
        let files: [(String, [UInt8])] = [
            ("map/points.bin", bytes(300_000, seed: seed)),
            ("map/index/tree.bin", bytes(70_000, seed: seed + 1)),
            ("map/empty.bin", []),
            ("attachments/tags.json", Array("{\"tags\":[]}".utf8)),
        ]
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(data).write(to: url)
        }
        return root
    }

    static func file(_ path: String, _ data: [UInt8]) -> Manifest.File {
        Manifest.File(path: path, length: Int64(data.count), sha256: SHA256.hash(data).hex)
    }

    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    /// Writes a hand-made archive: manifest.json (when given) then the entries, exactly as listed.
    static func rawArchive(
        at url: URL, manifest: Manifest?, entries: [(ArchiveEntry, [UInt8])],
        compression: ArchiveWriter.Compression = .zstd(level: 3)
    ) throws {
        try TestArchives.write(at: url.path, manifest: manifest.map { Array($0.encoded()) }, entries: entries, compression: compression)
    }

    static func regular(_ path: String, _ data: [UInt8]) -> (ArchiveEntry, [UInt8]) {
        TestArchives.regular(path, data)
    }
}
