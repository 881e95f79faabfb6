import Foundation
import TestSupport
import PackFormat
import PackStore
import Testing
import VPSArchive
import VPSCrypto
import VPSSQLite

/// The bad-input corpus of docs/reliability.md, at the store: every malformed archive is
/// committed over an installed version 1 and must fail with its own error while the store
/// keeps version 1 exactly as it was (same files, same content, verify clean).
///
/// PackFormatTests check the reader's error for most of these; this suite checks that each
/// one also leaves the store untouched, and covers the cases the reader tests do not.
@Suite struct BadInputCorpusTests {
    static let server = StoreFixtures.server
    static let payload = StoreFixtures.bytes(1000, seed: 5)

    /// What a commit of a bad archive must throw.
    enum Expected: Sendable, CustomStringConvertible {
        /// Exactly this error.
        case exactly(PackFormatError)
        /// A damaged-archive error (the exact text comes from libarchive or zstd).
        case corrupt

        var description: String {
            switch self {
            case .exactly(let error): "\(error)"
            case .corrupt: "the archive is damaged: ..."
            }
        }

        func matches(_ error: PackFormatError) -> Bool {
            switch self {
            case .exactly(let expected): error == expected
            case .corrupt: if case .corrupt = error { true } else { false }
            }
        }
    }

    /// One bad archive: its name in docs/reliability.md, how to write it, the error it must raise.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let write: @Sendable (URL) throws -> Void
        let expected: Expected
        var limits: ArchiveLimits = .standard
        var testDescription: String { name }
    }

    // MARK: - Writing bad archives

    static func file(_ path: String, _ data: [UInt8]) -> Manifest.File {
        Manifest.File(path: path, length: Int64(data.count), sha256: SHA256.hash(data).hex)
    }

    static func manifest(_ files: [Manifest.File], format: Int = 1) -> [UInt8] {
        var m = Manifest(tour: "demo", version: 2, created: StoreFixtures.created, files: files)
        m.format = format
        return Array(m.encoded())
    }

    /// Writes manifest.json (raw bytes, when given) then the entries exactly as listed.
    static func raw(
        _ url: URL, manifest: [UInt8]?, _ entries: [(ArchiveEntry, [UInt8])], compression: ArchiveWriter.Compression = .zstd(level: 3)
    ) throws {
        try TestArchives.write(at: url.path, manifest: manifest, entries: entries, compression: compression)
    }

    static func regular(_ path: String, _ data: [UInt8]) -> (ArchiveEntry, [UInt8]) {
        TestArchives.regular(path, data)
    }

    static func special(_ path: String, _ kind: ArchiveEntry.Kind, link: String? = nil) -> (ArchiveEntry, [UInt8]) {
        (ArchiveEntry(path: path, kind: kind, declaredSize: 0, linkTarget: link), [])
    }

    /// A sound version 2 archive, for the cases that damage one.
    static func sound(_ url: URL) throws {
        try raw(url, manifest: manifest([file("map/a.bin", payload), file("map/b.bin", StoreFixtures.bytes(200_000, seed: 6))]),
                [regular("map/a.bin", payload), regular("map/b.bin", StoreFixtures.bytes(200_000, seed: 6))])
    }

    static let a = file("map/a.bin", payload)

    static let cases: [Case] = [
        Case(name: "path traversal", write: { try raw($0, manifest: manifest([a]), [regular("map/../../etc/a.bin", payload)]) },
             expected: .exactly(.unsafePath("map/../../etc/a.bin", reason: "the path contains '..'"))),
        Case(name: "absolute path", write: { try raw($0, manifest: manifest([a]), [regular("/map/a.bin", payload)]) },
             expected: .exactly(.unsafePath("/map/a.bin", reason: "the path is absolute"))),
        Case(name: "symbolic link", write: { try raw($0, manifest: manifest([a]), [special("map/a.bin", .symbolicLink, link: "/etc/passwd")]) },
             expected: .exactly(.notRegularFile("map/a.bin", type: "symbolic link"))),
        Case(name: "hard link", write: {
            try raw($0, manifest: manifest([a, file("map/b.bin", payload)]),
                    [regular("map/a.bin", payload), special("map/b.bin", .hardLink, link: "map/a.bin")])
        }, expected: .exactly(.notRegularFile("map/b.bin", type: "hard link"))),
        Case(name: "character device", write: { try raw($0, manifest: manifest([file("map/a.bin", [])]), [special("map/a.bin", .characterDevice)]) },
             expected: .exactly(.notRegularFile("map/a.bin", type: "character device"))),
        Case(name: "block device", write: { try raw($0, manifest: manifest([file("map/a.bin", [])]), [special("map/a.bin", .blockDevice)]) },
             expected: .exactly(.notRegularFile("map/a.bin", type: "block device"))),
        Case(name: "FIFO", write: { try raw($0, manifest: manifest([file("map/a.bin", [])]), [special("map/a.bin", .fifo)]) },
             expected: .exactly(.notRegularFile("map/a.bin", type: "FIFO"))),
        Case(name: "duplicate entry", write: { try raw($0, manifest: manifest([a]), [regular("map/a.bin", payload), regular("map/a.bin", payload)]) },
             expected: .exactly(.duplicateEntry("map/a.bin"))),
        Case(name: "compression bomb (64 MiB of zeros, manifest says 1 KiB)", write: { url in
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            let writer = try ArchiveWriter(path: url.path, compression: .zstd(level: 19))
            let m = manifest([file("map/a.bin", [UInt8](repeating: 0, count: 1024))])
            try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(m.count)))
            try writer.write(m)
            try writer.begin(ArchiveEntry(path: "map/a.bin", kind: .regular, declaredSize: 64 << 20))
            for _ in 0..<64 { try writer.write(zeros) }
            try writer.finish()
        }, expected: .exactly(.lengthMismatch("map/a.bin", expected: 1024, actual: 64 << 20))),
        Case(name: "compression bomb (entry over the per-entry size cap)", write: { url in
            let big = [UInt8](repeating: 0, count: 300_000)
            try raw(url, manifest: manifest([file("map/a.bin", big)]), [regular("map/a.bin", big)], compression: .zstd(level: 19))
        }, expected: .exactly(.entryTooLarge("map/a.bin", limit: 100_000)),
             limits: ArchiveLimits(maximumEntryLength: 100_000, maximumTotalLength: 1 << 30, maximumEntryCount: 100)),
        Case(name: "entries over the total size cap", write: { url in
            let part = [UInt8](repeating: 1, count: 60_000)
            try raw(url, manifest: manifest([file("map/a.bin", part), file("map/b.bin", part)]),
                    [regular("map/a.bin", part), regular("map/b.bin", part)])
        }, expected: .exactly(.totalTooLarge(limit: 100_000)),
             limits: ArchiveLimits(maximumEntryLength: 100_000, maximumTotalLength: 100_000, maximumEntryCount: 100)),
        Case(name: "manifest missing", write: { try raw($0, manifest: nil, [regular("map/a.bin", payload)]) },
             expected: .exactly(.manifestNotFirst(found: "map/a.bin"))),
        Case(name: "manifest oversized", write: { url in
            // 16 MiB + 1 of JSON whitespace: compresses to almost nothing, refused from its header.
            let writer = try ArchiveWriter(path: url.path, compression: .zstd(level: 3))
            let size = Manifest.maximumEncodedSize + 1
            try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(size)))
            try writer.write([UInt8](repeating: 0x20, count: size))
            try writer.finish()
        }, expected: .exactly(.manifest("manifest.json declares \(Manifest.maximumEncodedSize + 1) bytes, over the \(Manifest.maximumEncodedSize)-byte limit"))),
        Case(name: "manifest with a wrong type (version as a string)", write: { url in
            var object = try #require(try JSONSerialization.jsonObject(with: Data(manifest([a]))) as? [String: Any])
            object["version"] = "2"
            try raw(url, manifest: Array(try JSONSerialization.data(withJSONObject: object)), [regular("map/a.bin", payload)])
        }, expected: .exactly(.manifest("manifest.json is not a valid manifest (field 'version' is not Int)"))),
        Case(name: "manifest of an unknown format version", write: { try raw($0, manifest: manifest([a], format: 2), [regular("map/a.bin", payload)]) },
             expected: .exactly(.unsupportedFormat(2))),
        Case(name: "file not in the manifest", write: {
            try raw($0, manifest: manifest([a]), [regular("map/a.bin", payload), regular("attachments/extra.json", [1, 2, 3])])
        }, expected: .exactly(.unlistedEntry("attachments/extra.json"))),
        Case(name: "manifest entry missing from the archive", write: {
            try raw($0, manifest: manifest([a, file("map/b.bin", [9])]), [regular("map/a.bin", payload)])
        }, expected: .exactly(.missingEntry("map/b.bin"))),
        Case(name: "hash mismatch", write: { url in
            var altered = payload
            altered[10] ^= 1
            try raw(url, manifest: manifest([a]), [regular("map/a.bin", altered)])
        }, expected: .exactly(.hashMismatch("map/a.bin", expected: a.sha256, actual: {
            var altered = payload
            altered[10] ^= 1
            return SHA256.hash(altered).hex
        }()))),
        Case(name: "entry shorter than its manifest length", write: {
            try raw($0, manifest: manifest([a]), [regular("map/a.bin", Array(payload.prefix(999)))])
        }, expected: .exactly(.lengthMismatch("map/a.bin", expected: 1000, actual: 999))),
        Case(name: "truncated archive", write: { url in
            try sound(url)
            let whole = try Data(contentsOf: url)
            try whole.prefix(whole.count * 2 / 3).write(to: url)
        }, expected: .corrupt),
        Case(name: "tar without zstd", write: { try raw($0, manifest: manifest([a]), [regular("map/a.bin", payload)], compression: .none) },
             expected: .exactly(.wrongContainer("the archive is compressed with 'none'; a .vpspack is tar compressed with zstd"))),
    ]

    // MARK: - The test

    @Test(arguments: cases)
    func badArchiveIsRefusedAndTheStoreIsUnchanged(_ bad: Case) throws {
        let dir = try TemporaryDirectory()
        let store = try PackStore(directory: dir.path("store"))
        let (good, _) = try StoreFixtures.archive(in: dir, version: 1, seed: 1, sharedSize: 100_000, ownSize: 50_000)
        try store.commit(archive: good, server: Self.server, tour: "demo")
        let before = try Snapshot(store)

        let url = dir.path("bad.vpspack")
        try bad.write(url)
        do {
            try store.commit(archive: url, server: Self.server, tour: "demo", limits: bad.limits)
            Issue.record("\(bad.name): the store accepted the archive")
        } catch {
            guard case .format(let format) = error else {
                Issue.record("\(bad.name): expected a format error (\(bad.expected)), got \(error)")
                return
            }
            #expect(bad.expected.matches(format), "\(bad.name): expected \(bad.expected), got \(format)")
            #expect(!error.description.isEmpty)
        }

        let after = try Snapshot(store)
        #expect(after == before, "\(bad.name): the store changed")
        #expect(try store.verify(server: Self.server, tour: "demo").isClean)
        #expect(try store.integrityCheck().isEmpty)
    }

    /// What must not change: the installed version, its manifest, every stored byte.
    struct Snapshot: Equatable {
        var version: Int?
        var manifest: Manifest
        var contents: [String: Data]
        var fileRows: Int64?

        init(_ store: PackStore) throws {
            version = try store.installedVersion(server: BadInputCorpusTests.server, tour: "demo")
            manifest = try store.info(server: BadInputCorpusTests.server, tour: "demo").manifest
            let pack = try store.openPack(server: BadInputCorpusTests.server, tour: "demo")
            contents = [:]
            for file in manifest.files { contents[file.path] = try pack.data(at: file.path) }
            let db = try Database(path: store.databaseURL.path)
            fileRows = try db.scalar("SELECT count(*) FROM files")?.integer
        }
    }
}
