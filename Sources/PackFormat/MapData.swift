public import Foundation

/// A pack's map: points, their descriptors, the descriptor index and keyframes,
/// with the reader and writer of the `map/` files.
///
/// ```swift
/// let map = try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: [])
/// let files = try map.encoded()          // ["map/points.bin": Data, ...]
/// let back = try MapData.decode(files: files)
/// ```
public struct MapData: Sendable, Equatable {
    public var points: [MapPoint]
    /// Every descriptor, grouped by point: a point's descriptors are contiguous.
    public var descriptors: [SIMD4<UInt64>]
    /// The point index of each descriptor; non-decreasing, and every point has at least one.
    public var descriptorPoints: [UInt32]
    public var keyframes: [MapKeyframe]
    public var index: MapIndexTables

    /// A map from its parts; builds the index when none is given. Validates everything.
    ///
    /// - Throws: ``MapFormatError`` naming the file and entry that is inconsistent.
    public init(points: [MapPoint], descriptors: [SIMD4<UInt64>], descriptorPoints: [UInt32], keyframes: [MapKeyframe],
                index: MapIndexTables? = nil) throws(MapFormatError) {
        self.points = points
        self.descriptors = descriptors
        self.descriptorPoints = descriptorPoints
        self.keyframes = keyframes
        self.index = index ?? MapIndexTables.build(descriptors: descriptors)
        try validate()
    }

    private init(unchecked points: [MapPoint], descriptors: [SIMD4<UInt64>], descriptorPoints: [UInt32], keyframes: [MapKeyframe], index: MapIndexTables) {
        self.points = points
        self.descriptors = descriptors
        self.descriptorPoints = descriptorPoints
        self.keyframes = keyframes
        self.index = index
    }

    /// Checks every invariant docs/map-format.md states.
    public func validate() throws(MapFormatError) {
        try Self.validatePoints(points)
        try Self.validateOwners(descriptorPoints, descriptorCount: descriptors.count, pointCount: points.count)
        try Self.validateIndex(index, descriptors: descriptors)
        try Self.validateKeyframes(keyframes)
    }

    // MARK: - Writing

    /// The four files' bytes, keyed by their path in the pack.
    public func encoded() throws(MapFormatError) -> [String: Data] {
        try validate()
        return [
            MapLayout.pointsPath: encodePoints(),
            MapLayout.descriptorsPath: encodeDescriptors(),
            MapLayout.indexPath: encodeIndex(),
            MapLayout.keyframesPath: encodeKeyframes(),
        ]
    }

    func encodePoints() -> Data {
        var w = ByteWriter(capacity: MapLayout.headerSize + points.count * MapLayout.pointRecordSize)
        w.header(MapLayout.pointsMagic, [MapLayout.version, UInt32(points.count), UInt32(MapLayout.pointRecordSize)])
        for p in points {
            w.u32(p.x.bitPattern)
            w.u32(p.y.bitPattern)
            w.u32(p.z.bitPattern)
            w.u16(UInt16(bitPattern: p.floor))
            w.u16(p.observations)
        }
        return w.data
    }

    func encodeDescriptors() -> Data {
        let m = descriptors.count
        var w = ByteWriter(capacity: MapLayout.headerSize + m * (MapLayout.descriptorSize + 4))
        w.header(MapLayout.descriptorsMagic, [MapLayout.version, UInt32(m), UInt32(points.count), 256])
        for d in descriptors {
            w.u64(d[0])
            w.u64(d[1])
            w.u64(d[2])
            w.u64(d[3])
        }
        for o in descriptorPoints { w.u32(o) }
        return w.data
    }

    func encodeIndex() -> Data {
        let bitBytes = MapLayout.paddedBitTableSize(index.bits.count)
        var w = ByteWriter(capacity: MapLayout.headerSize + bitBytes + 4 * (index.offsets.count + index.entries.count))
        w.header(MapLayout.indexMagic, [MapLayout.version, UInt32(index.descriptorCount), UInt32(index.tableCount), UInt32(index.keyBits)])
        w.data.append(contentsOf: index.bits)
        w.data.append(contentsOf: [UInt8](repeating: 0, count: bitBytes - index.bits.count))
        for o in index.offsets { w.u32(o) }
        for e in index.entries { w.u32(e) }
        return w.data
    }

    func encodeKeyframes() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding finite numbers and strings cannot fail; validate() ran before.
        return (try? encoder.encode(KeyframesFile(version: Int(MapLayout.version), keyframes: keyframes))) ?? Data()
    }

    // MARK: - Reading

    /// Reads a map from the four files' bytes keyed by their pack paths.
    ///
    /// - Throws: ``MapFormatError`` naming the missing or malformed file and what is wrong.
    public static func decode(files: [String: Data]) throws(MapFormatError) -> MapData {
        func file(_ path: String) throws(MapFormatError) -> Data {
            guard let data = files[path] else { throw MapFormatError(file: path, "the file is missing from the pack") }
            return data
        }
        return try decode(points: file(MapLayout.pointsPath), descriptors: file(MapLayout.descriptorsPath),
                          index: file(MapLayout.indexPath), keyframes: file(MapLayout.keyframesPath))
    }

    /// Reads a map from the bytes of its four files.
    public static func decode(points pointsData: Data, descriptors descriptorsData: Data, index indexData: Data, keyframes keyframesData: Data) throws(MapFormatError) -> MapData {
        let points = try decodePoints(pointsData)
        let (descriptors, owners) = try decodeDescriptors(descriptorsData, pointCount: points.count)
        let index = try decodeIndex(indexData, descriptors: descriptors)
        let keyframes = try decodeKeyframes(keyframesData)
        try validateKeyframes(keyframes)
        return MapData(unchecked: points, descriptors: descriptors, descriptorPoints: owners, keyframes: keyframes, index: index)
    }

    static func decodePoints(_ data: Data) throws(MapFormatError) -> [MapPoint] {
        let file = MapLayout.pointsPath
        let result: Result<[MapPoint], MapFormatError> = data.withUnsafeBytes { raw in
            Result { () throws(MapFormatError) -> [MapPoint] in
                let r = ByteReader(raw, file: file)
                let fields = try r.header(MapLayout.pointsMagic, fieldCount: 3)
                let n = try r.count(fields[1], what: "point count")
                guard fields[2] == UInt32(MapLayout.pointRecordSize) else {
                    throw MapFormatError(file: file, "the point record size is \(fields[2]), expected \(MapLayout.pointRecordSize)")
                }
                try r.expectSize(MapLayout.headerSize + n * MapLayout.pointRecordSize, what: "\(n) points")
                var points = [MapPoint]()
                points.reserveCapacity(n)
                for i in 0..<n {
                    let o = MapLayout.headerSize + i * MapLayout.pointRecordSize
                    let p = MapPoint(x: Float(bitPattern: r.u32(o)), y: Float(bitPattern: r.u32(o + 4)), z: Float(bitPattern: r.u32(o + 8)),
                                     floor: Int16(bitPattern: r.u16(o + 12)), observations: r.u16(o + 14))
                    points.append(p)
                }
                try validatePoints(points)
                return points
            }
        }
        return try result.get()
    }

    static func decodeDescriptors(_ data: Data, pointCount: Int) throws(MapFormatError) -> ([SIMD4<UInt64>], [UInt32]) {
        let file = MapLayout.descriptorsPath
        let result: Result<([SIMD4<UInt64>], [UInt32]), MapFormatError> = data.withUnsafeBytes { raw in
            Result { () throws(MapFormatError) -> ([SIMD4<UInt64>], [UInt32]) in
                let r = ByteReader(raw, file: file)
                let fields = try r.header(MapLayout.descriptorsMagic, fieldCount: 4)
                let m = try r.count(fields[1], what: "descriptor count")
                guard Int(fields[2]) == pointCount else {
                    throw MapFormatError(file: file, "it is for \(fields[2]) points but \(MapLayout.pointsPath) holds \(pointCount)")
                }
                guard fields[3] == 256 else { throw MapFormatError(file: file, "descriptors are \(fields[3]) bits; only 256 is supported") }
                try r.expectSize(MapLayout.headerSize + m * (MapLayout.descriptorSize + 4), what: "\(m) descriptors and their point indices")
                var descriptors = [SIMD4<UInt64>](repeating: .zero, count: m)
                var o = MapLayout.headerSize
                for i in 0..<m {
                    descriptors[i] = SIMD4(r.u64(o), r.u64(o + 8), r.u64(o + 16), r.u64(o + 24))
                    o += MapLayout.descriptorSize
                }
                let owners = r.u32Array(at: o, count: m)
                try validateOwners(owners, descriptorCount: m, pointCount: pointCount)
                return (descriptors, owners)
            }
        }
        return try result.get()
    }

    static func decodeIndex(_ data: Data, descriptors: [SIMD4<UInt64>]) throws(MapFormatError) -> MapIndexTables {
        let file = MapLayout.indexPath
        let result: Result<MapIndexTables, MapFormatError> = data.withUnsafeBytes { raw in
            Result { () throws(MapFormatError) -> MapIndexTables in
                let r = ByteReader(raw, file: file)
                let fields = try r.header(MapLayout.indexMagic, fieldCount: 4)
                let m = Int(fields[1])
                guard m == descriptors.count else {
                    throw MapFormatError(file: file, "it indexes \(m) descriptors but \(MapLayout.descriptorsPath) holds \(descriptors.count)")
                }
                let keyBits = Int(fields[3]), tables = Int(fields[2])
                guard keyBits == 8 || keyBits == 16 else { throw MapFormatError(file: file, "the key size is \(keyBits) bits; 8 or 16 are supported") }
                guard tables >= 1, tables * keyBits <= 256 else {
                    throw MapFormatError(file: file, "\(tables) tables of \(keyBits)-bit keys do not fit in a 256-bit descriptor")
                }
                let offsetCount = tables * ((1 << keyBits) + 1)
                let bitCount = tables * keyBits, bitBytes = MapLayout.paddedBitTableSize(bitCount)
                try r.expectSize(MapLayout.headerSize + bitBytes + 4 * (offsetCount + tables * m), what: "\(tables) tables over \(m) descriptors")
                let bits = Array(raw[MapLayout.headerSize..<(MapLayout.headerSize + bitCount)])
                guard raw[(MapLayout.headerSize + bitCount)..<(MapLayout.headerSize + bitBytes)].allSatisfy({ $0 == 0 }) else {
                    throw MapFormatError(file: file, "the padding after the key bit positions is not zero")
                }
                let offsets = r.u32Array(at: MapLayout.headerSize + bitBytes, count: offsetCount)
                let entries = r.u32Array(at: MapLayout.headerSize + bitBytes + 4 * offsetCount, count: tables * m)
                let index = MapIndexTables(keyBits: keyBits, tableCount: tables, descriptorCount: m, bits: bits, offsets: offsets, entries: entries)
                try validateIndex(index, descriptors: descriptors)
                return index
            }
        }
        return try result.get()
    }

    static func decodeKeyframes(_ data: Data) throws(MapFormatError) -> [MapKeyframe] {
        do {
            let file = try JSONDecoder().decode(KeyframesFile.self, from: data)
            guard file.version == Int(MapLayout.version) else {
                throw MapFormatError(file: MapLayout.keyframesPath, "the keyframes version is \(file.version), this build reads \(MapLayout.version)")
            }
            return file.keyframes
        } catch let error as MapFormatError {
            throw error
        } catch {
            throw MapFormatError(file: MapLayout.keyframesPath, "not valid keyframes JSON (\(DecodingErrorText.describe(error)))")
        }
    }

    // MARK: - Validation

    static func validatePoints(_ points: [MapPoint]) throws(MapFormatError) {
        guard points.count <= MapLayout.maxCount else { throw MapFormatError(file: MapLayout.pointsPath, "\(points.count) points exceed the limit of \(MapLayout.maxCount)") }
        for (i, p) in points.enumerated() where !(p.x.isFinite && p.y.isFinite && p.z.isFinite) {
            throw MapFormatError(file: MapLayout.pointsPath, "point \(i) has a non-finite coordinate (\(p.x), \(p.y), \(p.z))")
        }
    }

    static func validateOwners(_ owners: [UInt32], descriptorCount: Int, pointCount: Int) throws(MapFormatError) {
        let file = MapLayout.descriptorsPath
        guard owners.count == descriptorCount else {
            throw MapFormatError(file: file, "\(descriptorCount) descriptors but \(owners.count) point indices")
        }
        guard descriptorCount <= MapLayout.maxCount else { throw MapFormatError(file: file, "\(descriptorCount) descriptors exceed the limit of \(MapLayout.maxCount)") }
        var expected = 0 // the next point that must appear
        for (i, o) in owners.enumerated() {
            let p = Int(o)
            guard p < pointCount else { throw MapFormatError(file: file, "descriptor \(i) belongs to point \(p), but there are only \(pointCount) points") }
            if p == expected { expected += 1 } else if p != expected - 1 {
                throw MapFormatError(file: file, "descriptor \(i) belongs to point \(p); descriptors must be grouped by point in order, and point \(expected) has none")
            }
        }
        guard expected == pointCount else { throw MapFormatError(file: file, "point \(expected) has no descriptor; every point needs at least one") }
    }

    static func validateIndex(_ index: MapIndexTables, descriptors: [SIMD4<UInt64>]) throws(MapFormatError) {
        let file = MapLayout.indexPath
        let m = descriptors.count
        let buckets = 1 << index.keyBits
        guard index.descriptorCount == m, index.offsets.count == index.tableCount * (buckets + 1), index.entries.count == index.tableCount * m,
              index.bits.count == index.tableCount * index.keyBits else {
            throw MapFormatError(file: file, "the tables' sizes do not match \(m) descriptors")
        }
        guard Set(index.bits).count == index.bits.count else {
            throw MapFormatError(file: file, "the key bit positions repeat a descriptor bit; tables must use disjoint bits")
        }
        // Keys are computed in descriptor order (sequential reads) and then
        // looked up by entry: walking the descriptors in bucket order instead
        // would miss the cache on almost every entry of a large map.
        var keys = [UInt32](repeating: 0, count: m)
        for t in 0..<index.tableCount {
            let ob = t * (buckets + 1)
            MapIndexTables.computeKeys(descriptors, bits: index.bits[(t * index.keyBits)..<((t + 1) * index.keyBits)], into: &keys)
            guard index.offsets[ob] == 0, Int(index.offsets[ob + buckets]) == m else {
                throw MapFormatError(file: file, "table \(t) does not cover exactly the \(m) descriptors")
            }
            for k in 0..<buckets {
                let start = Int(index.offsets[ob + k]), end = Int(index.offsets[ob + k + 1])
                guard start <= end else { throw MapFormatError(file: file, "table \(t), bucket \(k): its offsets decrease") }
                guard end <= m else { throw MapFormatError(file: file, "table \(t), bucket \(k): offset \(end) is past the \(m) descriptors") }
                var previous = -1
                for e in start..<end {
                    let d = Int(index.entries[t * m + e])
                    guard d < m, d > previous else {
                        throw MapFormatError(file: file, "table \(t), bucket \(k): entry \(e) names descriptor \(d), out of range or out of order")
                    }
                    guard Int(keys[d]) == k else {
                        throw MapFormatError(file: file, "table \(t), bucket \(k): descriptor \(d) does not have this key")
                    }
                    previous = d
                }
            }
        }
    }

    static func validateKeyframes(_ keyframes: [MapKeyframe]) throws(MapFormatError) {
        let file = MapLayout.keyframesPath
        var ids = Set<Int>()
        for (i, k) in keyframes.enumerated() {
            guard ids.insert(k.id).inserted else { throw MapFormatError(file: file, "keyframe \(i): id \(k.id) is used twice") }
            guard k.position.count == 3, k.position.allSatisfy(\.isFinite) else {
                throw MapFormatError(file: file, "keyframe \(i): position must be 3 finite numbers")
            }
            guard k.rotation.count == 4, k.rotation.allSatisfy(\.isFinite) else {
                throw MapFormatError(file: file, "keyframe \(i): rotation must be 4 finite numbers [x, y, z, w]")
            }
            let norm = k.rotation.reduce(0) { $0 + $1 * $1 }.squareRoot()
            guard abs(norm - 1) < 1e-3 else { throw MapFormatError(file: file, "keyframe \(i): rotation is not a unit quaternion (norm \(norm))") }
            guard [k.fx, k.fy].allSatisfy({ $0.isFinite && $0 > 0 }), [k.cx, k.cy].allSatisfy(\.isFinite) else {
                throw MapFormatError(file: file, "keyframe \(i): intrinsics must be finite with positive focal lengths")
            }
            guard k.width > 0, k.height > 0 else { throw MapFormatError(file: file, "keyframe \(i): image size \(k.width)x\(k.height) is not positive") }
        }
    }
}

/// The JSON shape of map/keyframes.json.
struct KeyframesFile: Codable {
    var version: Int
    var keyframes: [MapKeyframe]
}

/// Appends little-endian values.
struct ByteWriter {
    var data: Data

    init(capacity: Int) {
        data = Data()
        data.reserveCapacity(capacity)
    }

    mutating func header(_ magic: [UInt8], _ fields: [UInt32]) {
        data.append(contentsOf: magic)
        for f in fields { u32(f) }
        data.append(contentsOf: [UInt8](repeating: 0, count: MapLayout.headerSize - 4 - 4 * fields.count))
    }

    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
}

/// Reads little-endian values from a buffer whose size was checked.
struct ByteReader {
    let raw: UnsafeRawBufferPointer
    let file: String

    init(_ raw: UnsafeRawBufferPointer, file: String) {
        self.raw = raw
        self.file = file
    }

    /// Checks the magic, the version and the zero padding; returns the `fieldCount` header fields (version first).
    func header(_ magic: [UInt8], fieldCount: Int) throws(MapFormatError) -> [UInt32] {
        guard raw.count >= MapLayout.headerSize else {
            throw MapFormatError(file: file, raw.isEmpty ? "the file is empty" : "the file is \(raw.count) bytes, shorter than its \(MapLayout.headerSize)-byte header")
        }
        guard Array(raw[0..<4]) == magic else {
            throw MapFormatError(file: file, "bad magic: expected '\(String(decoding: magic, as: UTF8.self))'")
        }
        let fields = (0..<fieldCount).map { u32(4 + 4 * $0) }
        guard fields[0] == MapLayout.version else {
            throw MapFormatError(file: file, "layout version \(fields[0]) is not supported (this build reads version \(MapLayout.version))")
        }
        guard raw[(4 + 4 * fieldCount)..<MapLayout.headerSize].allSatisfy({ $0 == 0 }) else {
            throw MapFormatError(file: file, "the reserved header bytes are not zero")
        }
        return fields
    }

    func count(_ value: UInt32, what: String) throws(MapFormatError) -> Int {
        guard Int(value) <= MapLayout.maxCount else { throw MapFormatError(file: file, "the \(what) \(value) exceeds the limit of \(MapLayout.maxCount)") }
        return Int(value)
    }

    func expectSize(_ size: Int, what: String) throws(MapFormatError) {
        guard raw.count == size else {
            throw MapFormatError(file: file, "the file is \(raw.count) bytes but its header announces \(what), which take \(size) bytes"
                                 + (raw.count < size ? " (truncated)" : " (trailing data)"))
        }
    }

    func u16(_ o: Int) -> UInt16 { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt16.self)) }
    func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
    func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }

    /// `count` UInt32 values from offset `o`, in one bulk copy (byte-swapped only on big-endian hosts).
    func u32Array(at o: Int, count: Int) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: count)
        out.withUnsafeMutableBytes { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[o..<(o + 4 * count)]))
        }
        #if _endian(big)
        for i in out.indices { out[i] = UInt32(littleEndian: out[i]) }
        #endif
        return out
    }
}
