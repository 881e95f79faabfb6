public import PackFormat

/// Approximate nearest neighbours in Hamming space with multi-index hashing.
///
/// The 256-bit descriptor is cut into `tableCount` substrings of `keyBits` bits;
/// table `t` buckets every map descriptor by its `t`-th substring (built at pack
/// time, stored in map/index.bin). A query probes, in every table, its own
/// substring's bucket and, with probe radius 1, the `keyBits` buckets one bit
/// away, and compares itself with each descriptor found (each once). By the
/// pigeonhole principle a map descriptor within Hamming distance
/// `tablesUsed * (radius + 1) - 1` of the query is always found; farther true
/// neighbours are found when at least one substring is that close, which is
/// likely (docs/matching.md gives the figures).
///
/// When the allowed subset is small, scanning it exhaustively is cheaper than
/// probing; the matcher switches to that below ``bruteForceLimit`` descriptors.
public struct HashIndexMatcher: DescriptorMatcher {
    public let index: MapIndexTables
    public let exact: BruteForceMatcher
    /// Probe radius per table: 0 (own bucket) or 1 (own bucket and its keyBits neighbours).
    public var probeRadius: Int
    /// How many of the index's tables are probed (the first ones; all tables are
    /// equally good): fewer is faster, more finds more true neighbours.
    public var tablesUsed: Int
    /// With an allowed subset of fewer descriptors than this, matching is exhaustive.
    public var bruteForceLimit: Int

    /// The defaults: 12 tables, radius 1 (docs/matching.md has the measurements behind them).
    public static let defaultTablesUsed = 12
    public static let defaultProbeRadius = 1

    public init(map: MapData, probeRadius: Int = defaultProbeRadius, tablesUsed: Int = defaultTablesUsed, bruteForceLimit: Int = 3000) {
        self.init(index: map.index, exact: BruteForceMatcher(map: map), probeRadius: probeRadius, tablesUsed: tablesUsed,
                  bruteForceLimit: bruteForceLimit)
    }

    public init(index: MapIndexTables, exact: BruteForceMatcher, probeRadius: Int = defaultProbeRadius, tablesUsed: Int = defaultTablesUsed,
                bruteForceLimit: Int = 3000) {
        precondition(index.descriptorCount == exact.descriptors.count && (0...1).contains(probeRadius) && tablesUsed >= 1)
        self.index = index
        self.exact = exact
        self.probeRadius = probeRadius
        self.tablesUsed = min(tablesUsed, index.tableCount)
        self.bruteForceLimit = bruteForceLimit
    }

    public func match(_ queries: [BinaryDescriptor], options: MatchOptions) -> [DescriptorMatch] {
        if let allowed = options.allowed {
            var allowedDescriptors = 0
            for p in allowed.points { allowedDescriptors += exact.pointStarts[Int(p) + 1] - exact.pointStarts[Int(p)] }
            if allowedDescriptors < bruteForceLimit { return exact.match(queries, options: options) }
        }
        let m = index.descriptorCount
        guard m > 0 else { return [] }
        let keyBits = index.keyBits, tables = tablesUsed
        let buckets = 1 << keyBits
        let radius = probeRadius
        // Per-descriptor stamp of the last query that compared it.
        var stamps = [UInt32](repeating: 0, count: m)
        var out: [DescriptorMatch] = []
        out.reserveCapacity(queries.count)
        let allowed = options.allowed
        index.offsets.withUnsafeBufferPointer { offsets in
            index.entries.withUnsafeBufferPointer { entries in
                exact.descriptors.withUnsafeBufferPointer { ds in
                    exact.owners.withUnsafeBufferPointer { owners in
                        stamps.withUnsafeMutableBufferPointer { stamps in
                            for (qi, q) in queries.enumerated() {
                                let stamp = UInt32(truncatingIfNeeded: qi &+ 1)
                                var best = BestTwo()
                                @inline(__always) func scan(_ table: Int, _ key: Int) {
                                    let ob = table * (buckets + 1)
                                    let start = Int(offsets[ob + key]), end = Int(offsets[ob + key + 1])
                                    let eb = table * m
                                    var e = start
                                    while e < end {
                                        let d = Int(entries[eb + e])
                                        e += 1
                                        // At radius 0 a descriptor sits in at most one probed bucket per
                                        // table, and comparing it again is cheaper than the stamp's cache miss.
                                        if radius > 0 {
                                            if stamps[d] == stamp { continue }
                                            stamps[d] = stamp
                                        }
                                        let p = Int(owners[d])
                                        if let allowed, !allowed.contains(p) { continue }
                                        best.offer(hammingDistance(q, ds[d]), point: p)
                                    }
                                }
                                for t in 0..<tables {
                                    let key = index.key(q, table: t)
                                    scan(t, key)
                                    if radius >= 1 {
                                        for b in 0..<keyBits { scan(t, key ^ (1 << b)) }
                                    }
                                }
                                if let match = best.result(query: qi, options: options) { out.append(match) }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
