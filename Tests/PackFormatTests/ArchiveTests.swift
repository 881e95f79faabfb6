import Foundation
import PackFormat
import Testing
import VPSArchive
import VPSCrypto

@Suite struct ArchiveRoundTripTests {
    @Test func folderRoundTripsThroughAnArchive() throws {
        let dir = try TemporaryDirectory()
        let src = try Fixtures.folder(in: dir)
        let out = dir.path("demo.vpspack")
        let geo = Manifest.Georeference(latitude: 48.85, longitude: 2.35, altitude: 35, heading: 12.5)
        let written = try PackArchiveWriter.write(folder: src, to: out, tour: "demo", version: 3, created: Fixtures.created, georeference: geo)
        #expect(written.files.map(\.path) == ["attachments/tags.json", "map/empty.bin", "map/index/tree.bin", "map/points.bin"])

        let pack = try ArchivePack(path: out.path)
        #expect(pack.manifest == written)
        #expect(pack.manifest.georeference == geo)
        #expect(pack.manifest.tour == "demo" && pack.manifest.version == 3)
        for file in written.files {
            let original = try Data(contentsOf: src.appendingPathComponent(file.path))
            #expect(try pack.data(at: file.path) == original, "content of \(file.path)")
        }
        #expect(throws: PackFormatError.noSuchFile("map/nope.bin")) { try pack.data(at: "map/nope.bin") }
    }

    @Test func manifestIsTheFirstEntryAndTheStreamIsZstd() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("demo.vpspack")
        try PackArchiveWriter.write(folder: Fixtures.folder(in: dir), to: out, tour: "demo", version: 1, created: Fixtures.created)
        let magic = try Data(contentsOf: out).prefix(4)
        #expect(Array(magic) == [0x28, 0xb5, 0x2f, 0xfd], "zstd frame magic")
        let reader = try ArchiveReader(path: out.path)
        let first = try #require(try reader.nextEntry())
        #expect(first.path == "manifest.json")
        #expect(reader.isZstdCompressed)
    }

    @Test func writingIsDeterministic() throws {
        let dir = try TemporaryDirectory()
        let src = try Fixtures.folder(in: dir)
        try PackArchiveWriter.write(folder: src, to: dir.path("a.vpspack"), tour: "t", version: 1, created: Fixtures.created)
        try PackArchiveWriter.write(folder: src, to: dir.path("b.vpspack"), tour: "t", version: 1, created: Fixtures.created)
        #expect(try Data(contentsOf: dir.path("a.vpspack")) == Data(contentsOf: dir.path("b.vpspack")))
    }

    @Test func entriesAfterTheManifestMayComeInAnyOrder() throws {
        let dir = try TemporaryDirectory()
        let a = Fixtures.bytes(5000, seed: 1)
        let b = Fixtures.bytes(7000, seed: 2)
        let manifest = Manifest(tour: "t", version: 1, created: Fixtures.created,
                                files: [Fixtures.file("map/a.bin", a), Fixtures.file("map/b.bin", b)])
        let url = dir.path("reversed.vpspack")
        try Fixtures.rawArchive(at: url, manifest: manifest, entries: [Fixtures.regular("map/b.bin", b), Fixtures.regular("map/a.bin", a)])
        let pack = try ArchivePack(path: url.path)
        #expect(try pack.data(at: "map/a.bin") == Data(a))
        #expect(try pack.data(at: "map/b.bin") == Data(b))
    }

    @Test func folderWithAFileOutsideMapAndAttachmentsIsRefused() throws {
        let dir = try TemporaryDirectory()
        let src = try Fixtures.folder(in: dir)
        try Data("x".utf8).write(to: src.appendingPathComponent("notes.txt"))
        #expect(throws: PackFormatError.self) {
            try PackArchiveWriter.write(folder: src, to: dir.path("x.vpspack"), tour: "t", version: 1)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("x.vpspack").path))
    }

    @Test func folderWithASymlinkIsRefused() throws {
        let dir = try TemporaryDirectory()
        let src = try Fixtures.folder(in: dir)
        try FileManager.default.createSymbolicLink(atPath: src.appendingPathComponent("map/link.bin").path, withDestinationPath: "/etc/passwd")
        #expect(throws: PackFormatError.notRegularFile("map/link.bin", type: "symbolic link")) {
            try PackArchiveWriter.write(folder: src, to: dir.path("x.vpspack"), tour: "t", version: 1)
        }
    }
}

/// Every archive that must be refused, each with the error naming what is wrong.
@Suite struct ArchiveRejectionTests {
    static let good = [UInt8](repeating: 7, count: 1000)

    func manifest(_ files: [Manifest.File]) -> Manifest {
        Manifest(tour: "t", version: 1, created: Fixtures.created, files: files)
    }

    func read(_ url: URL, limits: ArchiveLimits = .standard) throws {
        _ = try ArchivePack(path: url.path, limits: limits)
    }

    func expectRefused(
        _ expected: PackFormatError, manifest: Manifest?, entries: [(ArchiveEntry, [UInt8])],
        compression: ArchiveWriter.Compression = .zstd(level: 3), limits: ArchiveLimits = .standard
    ) throws {
        let dir = try TemporaryDirectory()
        let url = dir.path("bad.vpspack")
        try Fixtures.rawArchive(at: url, manifest: manifest, entries: entries, compression: compression)
        #expect(throws: expected) { try read(url, limits: limits) }
    }

    @Test func absolutePath() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.unsafePath("/map/a.bin", reason: "the path is absolute"),
                          manifest: manifest([f]), entries: [Fixtures.regular("/map/a.bin", Self.good)])
    }

    @Test func dotDotComponent() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.unsafePath("map/../../etc/a.bin", reason: "the path contains '..'"),
                          manifest: manifest([f]), entries: [Fixtures.regular("map/../../etc/a.bin", Self.good)])
    }

    @Test func symbolicLink() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.notRegularFile("map/a.bin", type: "symbolic link"), manifest: manifest([f]),
                          entries: [(ArchiveEntry(path: "map/a.bin", kind: .symbolicLink, declaredSize: 0, linkTarget: "/etc/passwd"), [])])
    }

    @Test func hardLink() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        let g = Fixtures.file("map/b.bin", Self.good)
        try expectRefused(.notRegularFile("map/b.bin", type: "hard link"), manifest: manifest([f, g]),
                          entries: [Fixtures.regular("map/a.bin", Self.good),
                                    (ArchiveEntry(path: "map/b.bin", kind: .hardLink, declaredSize: 0, linkTarget: "map/a.bin"), [])])
    }

    @Test func characterDevice() throws {
        let f = Fixtures.file("map/a.bin", [])
        try expectRefused(.notRegularFile("map/a.bin", type: "character device"), manifest: manifest([f]),
                          entries: [(ArchiveEntry(path: "map/a.bin", kind: .characterDevice, declaredSize: 0), [])])
    }

    @Test func directoryEntry() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.notRegularFile("map/", type: "directory"), manifest: manifest([f]),
                          entries: [(ArchiveEntry(path: "map/", kind: .directory, declaredSize: 0), []), Fixtures.regular("map/a.bin", Self.good)])
    }

    @Test func duplicateEntry() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.duplicateEntry("map/a.bin"), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", Self.good), Fixtures.regular("map/a.bin", Self.good)])
    }

    @Test func secondManifest() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.duplicateEntry("manifest.json"), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", Self.good), Fixtures.regular("manifest.json", Array(manifest([]).encoded()))])
    }

    @Test func unlistedEntry() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.unlistedEntry("map/extra.bin"), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", Self.good), Fixtures.regular("map/extra.bin", Self.good)])
    }

    @Test func missingEntry() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        let g = Fixtures.file("map/b.bin", [1, 2, 3])
        try expectRefused(.missingEntry("map/b.bin"), manifest: manifest([f, g]), entries: [Fixtures.regular("map/a.bin", Self.good)])
    }

    @Test func manifestMissing() throws {
        try expectRefused(.manifestNotFirst(found: "map/a.bin"), manifest: nil, entries: [Fixtures.regular("map/a.bin", Self.good)])
    }

    @Test func emptyArchive() throws {
        try expectRefused(.manifest("the archive is empty: manifest.json is missing"), manifest: nil, entries: [])
    }

    @Test func manifestNotFirst() throws {
        let m = manifest([Fixtures.file("map/a.bin", Self.good)])
        try expectRefused(.manifestNotFirst(found: "map/a.bin"), manifest: nil,
                          entries: [Fixtures.regular("map/a.bin", Self.good), Fixtures.regular("manifest.json", Array(m.encoded()))])
    }

    @Test func uncompressedTar() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        try expectRefused(.wrongContainer("the archive is compressed with 'none'; a .vpspack is tar compressed with zstd"),
                          manifest: manifest([f]), entries: [Fixtures.regular("map/a.bin", Self.good)], compression: .none)
    }

    @Test func unknownFormatVersion() throws {
        var m = manifest([])
        m.format = 99
        try expectRefused(.unsupportedFormat(99), manifest: m, entries: [])
    }

    @Test func entryLongerThanItsManifestLengthIsCutOff() throws {
        let f = Manifest.File(path: "map/a.bin", length: 10, sha256: SHA256.hash(Array(Self.good.prefix(10))).hex)
        // The header declares 1000 bytes; the reader stops before reading past the manifest's 10.
        try expectRefused(.lengthMismatch("map/a.bin", expected: 10, actual: 1000), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", Self.good)])
    }

    @Test func entryHashMismatch() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        var altered = Self.good
        altered[500] ^= 1
        try expectRefused(.hashMismatch("map/a.bin", expected: f.sha256, actual: SHA256.hash(altered).hex), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", altered)])
    }

    @Test func perEntryCap() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        let limits = ArchiveLimits(maximumEntryLength: 999, maximumTotalLength: 1 << 30, maximumEntryCount: 10)
        try expectRefused(.entryTooLarge("map/a.bin", limit: 999), manifest: manifest([f]),
                          entries: [Fixtures.regular("map/a.bin", Self.good)], limits: limits)
    }

    @Test func totalCap() throws {
        let f = Fixtures.file("map/a.bin", Self.good)
        let g = Fixtures.file("map/b.bin", Self.good)
        let limits = ArchiveLimits(maximumEntryLength: 1000, maximumTotalLength: 1500, maximumEntryCount: 10)
        try expectRefused(.totalTooLarge(limit: 1500), manifest: manifest([f, g]),
                          entries: [Fixtures.regular("map/a.bin", Self.good), Fixtures.regular("map/b.bin", Self.good)], limits: limits)
    }

    @Test func entryCountCap() throws {
        let files = (0..<3).map { Fixtures.file("map/\($0).bin", [UInt8($0)]) }
        let limits = ArchiveLimits(maximumEntryLength: 1000, maximumTotalLength: 1500, maximumEntryCount: 2)
        try expectRefused(.tooManyEntries(limit: 2), manifest: manifest(files),
                          entries: files.enumerated().map { Fixtures.regular($0.element.path, [UInt8($0.offset)]) }, limits: limits)
    }

    @Test func compressionBombIsBoundedByTheManifestLength() throws {
        // 64 MiB of zeros compresses to a few KiB; the manifest says 1 KiB, so reading stops there.
        let dir = try TemporaryDirectory()
        let url = dir.path("bomb.vpspack")
        let f = Fixtures.file("map/a.bin", [UInt8](repeating: 0, count: 1024))
        let writer = try ArchiveWriter(path: url.path, compression: .zstd(level: 19))
        let m = Array(manifest([f]).encoded())
        try writer.begin(ArchiveEntry(path: "manifest.json", kind: .regular, declaredSize: Int64(m.count)))
        try writer.write(m)
        try writer.begin(ArchiveEntry(path: "map/a.bin", kind: .regular, declaredSize: 64 << 20))
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<64 { try writer.write(zeros) }
        try writer.finish()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(size < 1 << 20)
        #expect(throws: PackFormatError.lengthMismatch("map/a.bin", expected: 1024, actual: 64 << 20)) { try read(url) }
    }

    @Test(arguments: [0.25, 0.5, 0.9, 0.999])
    func truncatedArchive(fraction: Double) throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("demo.vpspack")
        try PackArchiveWriter.write(folder: Fixtures.folder(in: dir), to: out, tour: "t", version: 1, created: Fixtures.created)
        let whole = try Data(contentsOf: out)
        let cut = dir.path("cut.vpspack")
        try whole.prefix(Int(Double(whole.count) * fraction)).write(to: cut)
        #expect(throws: PackFormatError.self) { try read(cut) }
    }

    @Test func flippedByteInTheCompressedStream() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("demo.vpspack")
        try PackArchiveWriter.write(folder: Fixtures.folder(in: dir), to: out, tour: "t", version: 1, created: Fixtures.created)
        var bytes = try Data(contentsOf: out)
        bytes[bytes.count / 2] ^= 0xff
        try bytes.write(to: out)
        #expect(throws: PackFormatError.self) { try read(out) }
    }

    @Test func garbageIsNotAnArchive() throws {
        let dir = try TemporaryDirectory()
        let url = dir.path("junk.vpspack")
        try Data(Fixtures.bytes(5000, seed: 9)).write(to: url)
        #expect(throws: PackFormatError.self) { try read(url) }
    }
}
