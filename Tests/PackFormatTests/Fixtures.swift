import Foundation
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
    /// Deterministic pseudo-random bytes.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &+ 0x9e37_79b9_7f4a_7c15
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            // Eight bytes per step: debug builds stay fast for multi-megabyte fixtures.
            var i = 0
            while i < count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                var word = (state ^ (state >> 29)).littleEndian
                withUnsafeBytes(of: &word) { w in
                    let n = min(8, count - i)
                    raw.baseAddress!.advanced(by: i).copyMemory(from: w.baseAddress!, byteCount: n)
                }
                i += 8
            }
        }
        return out
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
        let writer = try ArchiveWriter(path: url.path, compression: compression)
        if let manifest {
            let bytes = Array(manifest.encoded())
            try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(bytes.count)))
            try writer.write(bytes)
        }
        for (entry, data) in entries {
            try writer.begin(entry)
            if !data.isEmpty { try writer.write(data) }
        }
        try writer.finish()
    }

    static func regular(_ path: String, _ data: [UInt8]) -> (ArchiveEntry, [UInt8]) {
        (ArchiveEntry(path: path, kind: .regular, declaredSize: Int64(data.count)), data)
    }
}
