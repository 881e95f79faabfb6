import Foundation
import TestSupport
import PackFormat
import PackStore
import VPSArchive
import VPSCrypto

/// A fresh temporary directory, removed when the value is dropped.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-store-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> URL { url.appendingPathComponent(name) }
}

enum StoreFixtures {
    static let server = "file:///srv/site"
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        TestBytes.pseudoRandom(count, seed: seed)
    }

    /// Writes a pack folder and archive; `shared` bytes are identical across calls, `seed` varies the rest.
    @discardableResult
    static func archive(
        in dir: TemporaryDirectory, tour: String = "demo", version: Int, seed: UInt64, sharedSize: Int = 1_500_000,
        ownSize: Int = 400_000, name: String? = nil
    ) throws -> (url: URL, manifest: Manifest) {
        let folder = dir.path("src-\(tour)-\(version)-\(seed)")
        let files: [(String, [UInt8])] = [
            ("map/shared.bin", bytes(sharedSize, seed: 42)),
            ("map/own.bin", bytes(ownSize, seed: seed)),
            ("map/empty.bin", []),
            ("attachments/tags.json", Array("{\"version\":\(version)}".utf8)),
        ]
        for (path, data) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(data).write(to: url)
        }
        let out = dir.path(name ?? "\(tour)-\(version)-\(seed).vpspack")
        let manifest = try PackArchiveWriter.write(folder: folder, to: out, tour: tour, version: version, created: created)
        return (out, manifest)
    }

    /// An archive whose `map/own.bin` does not match its manifest hash.
    static func tamperedArchive(in dir: TemporaryDirectory, tour: String = "demo", version: Int) throws -> URL {
        var data = bytes(400_000, seed: 77)
        let manifest = Manifest(tour: tour, version: version, created: created, files: [
            Manifest.File(path: "map/own.bin", length: Int64(data.count), sha256: SHA256.hash(data).hex),
        ])
        data[123_456] ^= 0x40
        let url = dir.path("tampered-\(version).vpspack")
        let writer = try ArchiveWriter(path: url.path, compression: .zstd(level: 3))
        let m = Array(manifest.encoded())
        try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(m.count)))
        try writer.write(m)
        try writer.begin(ArchiveEntry(path: "map/own.bin", kind: .regular, declaredSize: Int64(data.count)))
        try writer.write(data)
        try writer.finish()
        return url
    }

    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// Flips one byte of `needle`'s first occurrence in the file at `url`; returns false when not found.
    static func corrupt(fileAt url: URL, where needle: [UInt8]) throws -> Bool {
        var data = try Data(contentsOf: url)
        guard let range = data.firstRange(of: Data(needle)) else { return false }
        data[range.lowerBound + needle.count / 2] ^= 0xff
        try data.write(to: url)
        return true
    }
}
