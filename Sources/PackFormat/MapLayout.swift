/// The binary layout of a pack's `map/` files, as docs/map-format.md describes byte for byte.
///
/// Every binary file starts with a 32-byte header: a 4-byte magic, then
/// little-endian `UInt32` fields (version, counts, record sizes), then zeros.
/// All multi-byte values in every file are little-endian.
public enum MapLayout {
    /// The map layout version this build reads and writes.
    public static let version: UInt32 = 1
    public static let headerSize = 32

    public static let pointsPath = "map/points.bin"
    public static let descriptorsPath = "map/descriptors.bin"
    public static let indexPath = "map/index.bin"
    public static let keyframesPath = "map/keyframes.json"

    /// `VPSP`, `VPSD`, `VPSI` as stored (byte order of the file).
    public static let pointsMagic: [UInt8] = Array("VPSP".utf8)
    public static let descriptorsMagic: [UInt8] = Array("VPSD".utf8)
    public static let indexMagic: [UInt8] = Array("VPSI".utf8)

    /// Bytes per point record: x, y, z (Float32), floor (Int16), observations (UInt16).
    public static let pointRecordSize = 16
    /// Bytes per descriptor: 256 bits as four little-endian UInt64, lane 0 first.
    public static let descriptorSize = 32
    /// Bytes the index's bit-position table takes: one byte per position, padded to a multiple of 4.
    public static func paddedBitTableSize(_ count: Int) -> Int { (count + 3) / 4 * 4 }
    /// The largest point or descriptor count a file may declare (2^28).
    public static let maxCount = 1 << 28
}

/// A map point: a position in pack coordinates (metres, Y up), its floor and how
/// many capture frames observed it.
public struct MapPoint: Sendable, Equatable {
    public var x: Float
    public var y: Float
    public var z: Float
    public var floor: Int16
    public var observations: UInt16

    public init(x: Float, y: Float, z: Float, floor: Int16 = 0, observations: UInt16 = 1) {
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.observations = observations
    }

    public var position: SIMD3<Float> { SIMD3(x, y, z) }
}

/// A capture keyframe: its pose (camera-to-pack, ARKit/OpenGL camera axes) and pinhole intrinsics.
public struct MapKeyframe: Codable, Sendable, Equatable {
    public var id: Int
    /// The source image name, informative only.
    public var name: String?
    /// Camera centre in pack coordinates.
    public var position: [Double]
    /// Camera-to-pack unit quaternion, [x, y, z, w].
    public var rotation: [Double]
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double
    public var width: Int
    public var height: Int
    public var floor: Int?

    public init(id: Int, name: String? = nil, position: [Double], rotation: [Double], fx: Double, fy: Double, cx: Double, cy: Double,
                width: Int, height: Int, floor: Int? = nil) {
        self.id = id
        self.name = name
        self.position = position
        self.rotation = rotation
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.width = width
        self.height = height
        self.floor = floor
    }
}

/// The hash tables of the descriptor index (map/index.bin): `tableCount` tables,
/// each keyed by `keyBits` chosen descriptor bits (disjoint across tables).
///
/// Table `t`'s key bit `j` is descriptor bit `bits[t * keyBits + j]`; its bucket
/// for key `k` holds the descriptor indices
/// `entries[t * descriptorCount + offsets[t * (2^keyBits + 1) + k] ..< ...[k + 1]]`, ascending.
public struct MapIndexTables: Sendable, Equatable {
    /// Bits per key: 8 or 16.
    public var keyBits: Int
    /// The number of tables, 1 ... 256 / keyBits.
    public var tableCount: Int
    public var descriptorCount: Int
    /// `tableCount * keyBits` distinct descriptor bit positions (0...255), table after table.
    public var bits: [UInt8]
    /// `tableCount * (2^keyBits + 1)` bucket starts, table after table.
    public var offsets: [UInt32]
    /// `tableCount * descriptorCount` descriptor indices, table after table.
    public var entries: [UInt32]

    public init(keyBits: Int, tableCount: Int, descriptorCount: Int, bits: [UInt8], offsets: [UInt32], entries: [UInt32]) {
        self.keyBits = keyBits
        self.tableCount = tableCount
        self.descriptorCount = descriptorCount
        self.bits = bits
        self.offsets = offsets
        self.entries = entries
    }

    /// The key of `descriptor` in table `table`.
    @inlinable
    public func key(_ descriptor: SIMD4<UInt64>, table: Int) -> Int {
        Self.key(descriptor, bits: bits, from: table * keyBits, count: keyBits)
    }

    @inlinable @inline(__always)
    static func key(_ descriptor: SIMD4<UInt64>, bits: [UInt8], from start: Int, count: Int) -> Int {
        var key = 0
        for j in 0..<count {
            let b = Int(bits[start + j])
            key |= Int(truncatingIfNeeded: (descriptor[b >> 6] >> UInt64(b & 63)) & 1) << j
        }
        return key
    }

    /// `keys[d]` = the key of descriptor `d` for the given key bits (bit `j` of the
    /// key is descriptor bit `bits[j]`). Works in blocks that stay in cache, one
    /// key bit at a time, so the inner loop is a plain strided shift-and-or.
    static func computeKeys(_ descriptors: [SIMD4<UInt64>], bits: ArraySlice<UInt8>, into keys: inout [UInt32]) {
        let m = descriptors.count
        let block = 2048
        descriptors.withUnsafeBufferPointer { ds in
            ds.withMemoryRebound(to: UInt64.self) { words in
                keys.withUnsafeMutableBufferPointer { keys in
                    var low = 0
                    while low < m {
                        let high = min(low + block, m)
                        for d in low..<high { keys[d] = 0 }
                        for (j, b) in bits.enumerated() {
                            let lane = Int(b >> 6), shift = UInt64(b & 63)
                            for d in low..<high {
                                keys[d] |= UInt32(truncatingIfNeeded: (words[d &* 4 &+ lane] &>> shift) & 1) &<< UInt32(j)
                            }
                        }
                        low = high
                    }
                }
            }
        }
    }

    /// The bit positions the index uses for `descriptors`: the `count` most balanced
    /// bits (fraction of ones nearest one half, over up to 20000 descriptors), dealt
    /// round-robin to the tables so every table gets a similar share of good bits.
    public static func balancedBits(_ descriptors: [SIMD4<UInt64>], keyBits: Int, tableCount: Int) -> [UInt8] {
        let step = max(1, descriptors.count / 20000)
        var ones = [Int](repeating: 0, count: 256)
        var n = 0
        for i in stride(from: 0, to: descriptors.count, by: step) {
            let d = descriptors[i]
            for b in 0..<256 { ones[b] += Int((d[b >> 6] >> UInt64(b & 63)) & 1) }
            n += 1
        }
        let bias: [Int] = ones.map { abs(2 * $0 - n) }
        let ranked = (0..<256).sorted { (a: Int, b: Int) -> Bool in bias[a] != bias[b] ? bias[a] < bias[b] : a < b }
        var bits = [UInt8](repeating: 0, count: tableCount * keyBits)
        for r in 0..<(tableCount * keyBits) {
            bits[(r % tableCount) * keyBits + r / tableCount] = UInt8(ranked[r])
        }
        return bits
    }

    /// Builds the tables for `descriptors` by counting sort (stable: buckets ascend).
    public static func build(descriptors: [SIMD4<UInt64>], keyBits: Int = 16, tableCount: Int = 16) -> MapIndexTables {
        precondition((keyBits == 8 || keyBits == 16) && tableCount >= 1 && tableCount * keyBits <= 256)
        let bits = balancedBits(descriptors, keyBits: keyBits, tableCount: tableCount)
        let buckets = 1 << keyBits
        let m = descriptors.count
        var offsets = [UInt32](repeating: 0, count: tableCount * (buckets + 1))
        var entries = [UInt32](repeating: 0, count: tableCount * m)
        var keys = [UInt32](repeating: 0, count: m)
        for t in 0..<tableCount {
            let ob = t * (buckets + 1)
            computeKeys(descriptors, bits: bits[(t * keyBits)..<((t + 1) * keyBits)], into: &keys)
            for i in 0..<m { offsets[ob + Int(keys[i]) + 1] &+= 1 }
            for k in 0..<buckets { offsets[ob + k + 1] &+= offsets[ob + k] }
            var cursor = Array(offsets[ob..<(ob + buckets)])
            for i in 0..<m {
                let k = Int(keys[i])
                entries[t * m + Int(cursor[k])] = UInt32(i)
                cursor[k] &+= 1
            }
        }
        return MapIndexTables(keyBits: keyBits, tableCount: tableCount, descriptorCount: m, bits: bits, offsets: offsets, entries: entries)
    }
}

/// Why a map file was refused: which file, which entry or field, what is wrong.
public struct MapFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, e.g. `map/points.bin`.
    public var file: String
    public var reason: String

    public init(file: String, _ reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
