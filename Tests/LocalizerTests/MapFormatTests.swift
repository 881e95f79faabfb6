import Foundation
@testable import PackFormat
import Testing

@Suite("MapFormat")
struct MapFormatTests {
    /// A small valid map: 1-3 descriptors per point, two keyframes.
    static func sampleMap(points n: Int = 50, seed: UInt64 = 9) throws -> MapData {
        var rng = TestRandom(seed: seed)
        var points: [MapPoint] = []
        var descriptors: [SIMD4<UInt64>] = []
        var owners: [UInt32] = []
        for i in 0..<n {
            points.append(MapPoint(x: Float(rng.gaussian() * 10), y: Float(rng.uniform() * 3), z: Float(rng.gaussian() * 10),
                                   floor: Int16(rng.int(-1...2)), observations: UInt16(rng.int(2...40))))
            for _ in 0..<rng.int(1...3) {
                descriptors.append(rng.descriptor())
                owners.append(UInt32(i))
            }
        }
        let keyframes = [
            MapKeyframe(id: 0, name: "f0.jpg", position: [0, 1.5, 0], rotation: [0, 0, 0, 1], fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480),
            MapKeyframe(id: 7, position: [2, 1.5, -1], rotation: [0, 0.7071067811865476, 0, 0.7071067811865476], fx: 800, fy: 810,
                        cx: 480, cy: 270, width: 960, height: 540, floor: 1),
        ]
        // 8-bit keys keep the tables small, so the many decodes below stay fast.
        return try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: keyframes,
                           index: MapIndexTables.build(descriptors: descriptors, keyBits: 8, tableCount: 32))
    }

    static func expectRefused(_ files: [String: Data], file: String, containing words: String, _ comment: Comment) {
        do {
            _ = try MapData.decode(files: files)
            Issue.record("accepted a malformed map: \(comment)")
        } catch {
            #expect(error.file == file, "\(comment): \(error)")
            #expect(error.reason.contains(words), "\(comment): '\(error.reason)' should mention '\(words)'")
        }
    }

    @Test("A map survives encoding and decoding unchanged")
    func roundTrip() throws {
        let map = try Self.sampleMap()
        let files = try map.encoded()
        #expect(Set(files.keys) == [MapLayout.pointsPath, MapLayout.descriptorsPath, MapLayout.indexPath, MapLayout.keyframesPath])
        #expect(files[MapLayout.pointsPath]!.count == 32 + 16 * map.points.count)
        #expect(files[MapLayout.descriptorsPath]!.count == 32 + 36 * map.descriptors.count)
        let back = try MapData.decode(files: files)
        #expect(back == map)
        // Encoding is deterministic.
        #expect(try back.encoded() == files)
    }

    @Test("The points file is laid out as documented")
    func pointsBytes() throws {
        let map = try MapData(points: [MapPoint(x: 1.5, y: -2, z: 0.25, floor: -3, observations: 513)],
                              descriptors: [SIMD4(1, 2, 3, 0x0102_0304_0506_0708)], descriptorPoints: [0], keyframes: [])
        let files = try map.encoded()
        let p = [UInt8](files[MapLayout.pointsPath]!)
        #expect(Array(p[0..<16]) == Array("VPSP".utf8) + [1, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0])
        #expect(p[16..<32].allSatisfy { $0 == 0 })
        #expect(Array(p[32..<36]) == [0x00, 0x00, 0xC0, 0x3F]) // 1.5f
        #expect(Array(p[44..<48]) == [0xFD, 0xFF, 0x01, 0x02]) // floor -3, observations 513
        let d = [UInt8](files[MapLayout.descriptorsPath]!)
        #expect(Array(d[0..<20]) == Array("VPSD".utf8) + [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0])
        #expect(Array(d[56..<64]) == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(Array(d[64..<68]) == [0, 0, 0, 0])
        let i = [UInt8](files[MapLayout.indexPath]!)
        #expect(Array(i[0..<20]) == Array("VPSI".utf8) + [1, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0])
        #expect(i.count == 32 + 256 + 4 * (16 * 65537 + 16))
        #expect(Set(i[32..<288]).count == 256) // the key bits: every descriptor bit once
    }

    @Test("An empty map is valid")
    func emptyMap() throws {
        let map = try MapData(points: [], descriptors: [], descriptorPoints: [], keyframes: [])
        #expect(try MapData.decode(files: try map.encoded()) == map)
    }

    @Test("The writer refuses inconsistent input")
    func writerValidates() throws {
        #expect(throws: MapFormatError.self) {
            try MapData(points: [MapPoint(x: .nan, y: 0, z: 0)], descriptors: [.zero], descriptorPoints: [0], keyframes: [])
        }
        #expect(throws: MapFormatError.self) {
            try MapData(points: [MapPoint(x: 0, y: 0, z: 0), MapPoint(x: 1, y: 0, z: 0)], descriptors: [.zero], descriptorPoints: [0], keyframes: [])
        }
        #expect(throws: MapFormatError.self) {
            try MapData(points: [MapPoint(x: 0, y: 0, z: 0)], descriptors: [.zero], descriptorPoints: [0],
                        keyframes: [MapKeyframe(id: 0, position: [0, 0, 0], rotation: [0, 0, 0, 2], fx: 1, fy: 1, cx: 0, cy: 0, width: 1, height: 1)])
        }
    }

    /// Replaces bytes of one file.
    static func patched(_ files: [String: Data], _ path: String, _ edit: (inout [UInt8]) -> Void) -> [String: Data] {
        var copy = files
        var bytes = [UInt8](files[path]!)
        edit(&bytes)
        copy[path] = Data(bytes)
        return copy
    }

    static func putU32(_ bytes: inout [UInt8], _ offset: Int, _ v: UInt32) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    static func putF32(_ bytes: inout [UInt8], _ offset: Int, _ v: Float) { putU32(&bytes, offset, v.bitPattern) }

    @Test("Every malformed points file is refused with a clear error")
    func malformedPoints() throws {
        let files = try Self.sampleMap().encoded()
        let path = MapLayout.pointsPath
        var missing = files
        missing[path] = nil
        Self.expectRefused(missing, file: path, containing: "missing", "no points file")
        Self.expectRefused(Self.patched(files, path) { $0 = [] }, file: path, containing: "empty", "empty")
        Self.expectRefused(Self.patched(files, path) { $0 = Array($0.prefix(20)) }, file: path, containing: "header", "short header")
        Self.expectRefused(Self.patched(files, path) { $0[0] = UInt8(ascii: "X") }, file: path, containing: "magic", "bad magic")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 4, 2) }, file: path, containing: "version 2", "future version")
        Self.expectRefused(Self.patched(files, path) { $0[31] = 1 }, file: path, containing: "reserved", "reserved bytes")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 12, 20) }, file: path, containing: "record size", "record size")
        Self.expectRefused(Self.patched(files, path) { $0.removeLast() }, file: path, containing: "truncated", "truncated")
        Self.expectRefused(Self.patched(files, path) { $0.append(0) }, file: path, containing: "trailing", "trailing byte")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 8, 0xFFFF_FFFF) }, file: path, containing: "limit", "huge count")
        Self.expectRefused(Self.patched(files, path) { Self.putF32(&$0, 32 + 16 * 3 + 4, .nan) }, file: path, containing: "point 3", "NaN")
        Self.expectRefused(Self.patched(files, path) { Self.putF32(&$0, 32 + 16 * 5, -.infinity) }, file: path, containing: "non-finite", "infinity")
    }

    @Test("Every malformed descriptors file is refused with a clear error")
    func malformedDescriptors() throws {
        let map = try Self.sampleMap()
        let files = try map.encoded()
        let path = MapLayout.descriptorsPath
        let m = map.descriptors.count
        let owners = 32 + 32 * m
        Self.expectRefused(Self.patched(files, path) { $0[1] = 0 }, file: path, containing: "magic", "bad magic")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 12, 49) }, file: path, containing: "49 points", "point count mismatch")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 16, 512) }, file: path, containing: "512 bits", "descriptor size")
        Self.expectRefused(Self.patched(files, path) { $0.removeLast(4) }, file: path, containing: "truncated", "truncated")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, owners + 4 * (m - 1), 50) }, file: path, containing: "only 50 points", "owner out of range")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, owners, 1) }, file: path, containing: "grouped", "owners out of order")
        // The last point loses its descriptors to the one before it.
        let lastStart = map.descriptorPoints.firstIndex(of: 49)!
        Self.expectRefused(Self.patched(files, path) { b in for d in lastStart..<m { Self.putU32(&b, owners + 4 * d, 48) } },
                           file: path, containing: "point 49 has no descriptor", "point without descriptor")
    }

    @Test("Every malformed index file is refused with a clear error")
    func malformedIndex() throws {
        let map = try Self.sampleMap()
        let files = try map.encoded()
        let path = MapLayout.indexPath
        let m = map.descriptors.count
        let bitTable = 32 + 256 // 32 tables x 8 key bits
        let entries = bitTable + 4 * 32 * 257
        Self.expectRefused(Self.patched(files, path) { $0[3] = 0 }, file: path, containing: "magic", "bad magic")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 8, UInt32(m + 1)) }, file: path, containing: "indexes", "descriptor count")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 16, 12) }, file: path, containing: "key size", "key bits")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, 12, 33) }, file: path, containing: "do not fit", "too many tables")
        Self.expectRefused(Self.patched(files, path) { $0.removeLast() }, file: path, containing: "truncated", "truncated")
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, entries, UInt32(m)) }, file: path, containing: "out of range", "entry out of range")
        // Swap two entries of table 0 that sit in different buckets.
        let d0 = map.index.entries[0], d1 = map.index.entries[m - 1]
        Self.expectRefused(Self.patched(files, path) { b in Self.putU32(&b, entries, d1); Self.putU32(&b, entries + 4 * (m - 1), d0) },
                           file: path, containing: "table 0", "entries in the wrong bucket")
        // Offsets of table 0 that decrease.
        let key = map.index.key(map.descriptors[Int(d0)], table: 0)
        Self.expectRefused(Self.patched(files, path) { Self.putU32(&$0, bitTable + 4 * (key + 1), 0) }, file: path, containing: "table 0", "decreasing offsets")
        // A key bit used twice.
        Self.expectRefused(Self.patched(files, path) { $0[33] = $0[32] }, file: path, containing: "disjoint", "repeated key bit")
    }

    @Test("Every malformed keyframes file is refused with a clear error")
    func malformedKeyframes() throws {
        let files = try Self.sampleMap().encoded()
        let path = MapLayout.keyframesPath
        func with(_ json: String) -> [String: Data] {
            var f = files
            f[path] = Data(json.utf8)
            return f
        }
        let good = #"{"id": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1], "fx": 1, "fy": 1, "cx": 0, "cy": 0, "width": 4, "height": 3}"#
        #expect(throws: Never.self) { try MapData.decode(files: with(#"{"version": 1, "keyframes": [\#(good)]}"#)) }
        Self.expectRefused(with("[1, 2"), file: path, containing: "not valid keyframes JSON", "broken JSON")
        Self.expectRefused(with(#"{"version": 2, "keyframes": []}"#), file: path, containing: "version is 2", "version")
        Self.expectRefused(with(#"{"version": 1, "keyframes": [{"id": 0}]}"#), file: path, containing: "missing field", "missing fields")
        Self.expectRefused(with(#"{"version": 1, "keyframes": [\#(good), \#(good)]}"#), file: path, containing: "used twice", "duplicate id")
        let badRotation = good.replacingOccurrences(of: "[0, 0, 0, 1]", with: "[0, 0, 0, 3]")
        Self.expectRefused(with(#"{"version": 1, "keyframes": [\#(badRotation)]}"#), file: path, containing: "unit quaternion", "rotation")
        let badPosition = good.replacingOccurrences(of: "[0, 0, 0]", with: "[0, 0]")
        Self.expectRefused(with(#"{"version": 1, "keyframes": [\#(badPosition)]}"#), file: path, containing: "position", "position")
        let badFocal = good.replacingOccurrences(of: #""fx": 1"#, with: #""fx": -1"#)
        Self.expectRefused(with(#"{"version": 1, "keyframes": [\#(badFocal)]}"#), file: path, containing: "focal", "focal length")
        let badSize = good.replacingOccurrences(of: #""width": 4"#, with: #""width": 0"#)
        Self.expectRefused(with(#"{"version": 1, "keyframes": [\#(badSize)]}"#), file: path, containing: "image size", "size")
    }
}
