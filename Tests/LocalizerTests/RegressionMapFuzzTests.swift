import Foundation
@testable import PackFormat
import Testing

/// Inputs found by Scripts/fuzz that crashed the map reader, kept as regression tests.
///
/// The crashing files live in Tests/FuzzCorpus/regressions/; each is in the map fuzz
/// harness's layout: three little-endian UInt32 lengths (points, descriptors, index),
/// those three files, then keyframes.json.
@Suite struct RegressionMapFuzzTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus/regressions")

    /// Splits a map fuzz input into its four files, as the harness does.
    static func split(_ bytes: [UInt8]) throws -> [Data] {
        try #require(bytes.count >= 12, "a map fuzz input starts with three lengths")
        var parts: [Data] = []
        var offset = 12
        for i in 0..<3 {
            var length = 0
            for b in 0..<4 { length |= Int(bytes[i * 4 + b]) << (8 * b) }
            let end = min(bytes.count, offset + length)
            parts.append(Data(bytes[offset..<end]))
            offset = end
        }
        parts.append(Data(bytes[offset...]))
        return parts
    }

    /// An index bucket whose end offset lies past the descriptor count made `validateIndex`
    /// read `entries` out of range (a trap) instead of refusing the file.
    @Test func indexOffsetPastTheDescriptorsIsRefusedNotATrap() throws {
        let url = Self.regressions.appendingPathComponent("map-index-offset-past-descriptors.bin")
        let bytes = try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path)")
        let parts = try Self.split(Array(bytes))
        do {
            _ = try MapData.decode(points: parts[0], descriptors: parts[1], index: parts[2], keyframes: parts[3])
            Issue.record("the fuzzed map was accepted")
        } catch {
            #expect(error.file == MapLayout.indexPath, "\(error)")
        }
    }

    @Test func bucketEndPastTheDescriptorsNamesTheTableAndBucket() throws {
        let map = try MapFormatTests.sampleMap()
        let files = try map.encoded()
        let m = map.descriptors.count
        let last = map.index.tableCount - 1
        let buckets = 1 << map.index.keyBits
        // Bucket 0 of the last table ends past the descriptors; every later offset stays sound.
        // The offsets follow the header and the key bit positions (T·K bytes, padded to 4).
        let keyBitBytes = (map.index.tableCount * map.index.keyBits + 3) / 4 * 4
        var index = Array(try #require(files[MapLayout.indexPath]))
        MapFormatTests.putU32(&index, MapLayout.headerSize + keyBitBytes + 4 * (last * (buckets + 1) + 1), UInt32(m + 5))
        var patched = files
        patched[MapLayout.indexPath] = Data(index)
        MapFormatTests.expectRefused(patched, file: MapLayout.indexPath, containing: "table \(last), bucket 0: offset \(m + 5) is past the \(m) descriptors",
                                     "bucket end past the descriptors")
    }
}
