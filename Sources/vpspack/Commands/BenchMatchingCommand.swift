import Foundation
import Localizer
import PackFormat
import VPSImageIO

/// `vpspack bench-matching`: recall and speed of the descriptor index against brute force
/// (hidden; used by Scripts/bench-localize).
enum BenchMatchingCommand: Command {
    static let name = "bench-matching"
    static let summary = "measure descriptor index recall and speed (benchmark helper)"
    static let help = """
        usage: vpspack bench-matching MAPIMAGE... --query IMAGE... [--map-features N] [--query-features N] [--brute-only] [--json]

        Builds a map from the features of the MAPIMAGEs (one point per descriptor),
        matches the features of each --query image against it by brute force and
        through the index with several settings, and prints time per query
        descriptor and recall (the share of queries whose true nearest neighbour,
        within 64 bits, the index finds).
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let bruteOnly = arguments.flag("--brute-only")
        let queryPaths = try arguments.options("--query")
        let mapFeatures = try arguments.option("--map-features", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 2000
        let queryFeatures = try arguments.option("--query-features", "a positive integer") { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 1000
        let mapPaths = arguments.positionals()
        try arguments.finish()
        guard !mapPaths.isEmpty, !queryPaths.isEmpty else { throw UsageError("give map images and at least one --query image") }

        var descriptors: [BinaryDescriptor] = []
        for path in mapPaths {
            descriptors += FeatureExtractor(.init(maxFeatures: mapFeatures)).extract(try ImageDecoder.decode(path: path).image).descriptors
        }
        var queries: [BinaryDescriptor] = []
        for path in queryPaths {
            queries += FeatureExtractor(.init(maxFeatures: queryFeatures)).extract(try ImageDecoder.decode(path: path).image).descriptors
        }
        let points = descriptors.indices.map { MapPoint(x: Float($0 % 1000), y: 0, z: Float($0 / 1000)) }
        let owners = descriptors.indices.map { UInt32($0) }
        if ProcessInfo.processInfo.environment["VPSPACK_BENCH_DIAG"] != nil {
            var ones = [Int](repeating: 0, count: 256)
            for d in descriptors { for b in 0..<256 where (d[b / 64] >> UInt64(b % 64)) & 1 == 1 { ones[b] += 1 } }
            let means = ones.map { Double($0) / Double(descriptors.count) }
            output.out("bit means: min \(means.min()!) max \(means.max()!) mean |p-0.5| \(means.map { abs($0 - 0.5) }.reduce(0, +) / 256)")
            let index = MapIndexTables.build(descriptors: descriptors, keyBits: 16, tableCount: 16)
            for t in [0, 5, 15] {
                var sq = 0.0, maxb = 0
                for k in 0..<65536 { let n = Int(index.offsets[t * 65537 + k + 1] - index.offsets[t * 65537 + k]); sq += Double(n * n); maxb = max(maxb, n) }
                output.out("table \(t): expected bucket size per probe \(sq / Double(descriptors.count)), largest \(maxb), uniform \(Double(descriptors.count) / 65536)")
            }
        }
        let clock = ContinuousClock()
        func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

        let brute = BruteForceMatcher(descriptors: descriptors, owners: owners, pointCount: points.count)
        var t0 = clock.now
        let exact = brute.match(queries, options: MatchOptions())
        let bruteMs = ms(clock.now - t0)
        var rows: [[String: Any]] = [["method": "brute force", "msPerQuery": bruteMs / Double(queries.count), "totalMs": bruteMs, "recall": 1.0, "speedup": 1.0]]
        if !bruteOnly {
            let relevant = exact.filter { $0.distance <= 64 }
            let ratioMatches = exact.filter { $0.distance <= 64 && $0.passesRatio(0.8) }
            for (keyBits, tables, radius) in [(16, 16, 1), (16, 16, 0), (16, 8, 1), (8, 32, 0)] {
                t0 = clock.now
                let index = MapIndexTables.build(descriptors: descriptors, keyBits: keyBits, tableCount: tables)
                let buildMs = ms(clock.now - t0)
                let matcher = HashIndexMatcher(index: index, exact: brute, probeRadius: radius)
                t0 = clock.now
                let found = matcher.match(queries, options: MatchOptions())
                let indexMs = ms(clock.now - t0)
                let byQuery = Dictionary(uniqueKeysWithValues: found.map { ($0.query, $0) })
                let hits = relevant.filter { byQuery[$0.query]?.distance == $0.distance }.count
                let agree = ratioMatches.filter { byQuery[$0.query]?.point == $0.point }.count
                rows.append(["method": "\(tables) tables x \(keyBits) bits, radius \(radius)", "msPerQuery": indexMs / Double(queries.count),
                             "totalMs": indexMs, "buildMs": buildMs, "recall": Double(hits) / Double(max(relevant.count, 1)),
                             "ratioAgreement": Double(agree) / Double(max(ratioMatches.count, 1)), "speedup": bruteMs / indexMs])
            }
            if !json {
                output.out("map: \(descriptors.count) descriptors from \(mapPaths.count) images; queries: \(queries.count) descriptors, \(relevant.count) with a neighbour within 64 bits, \(ratioMatches.count) passing the 0.8 ratio test")
            }
        }
        if json {
            output.json(["mapDescriptors": descriptors.count, "queries": queries.count, "rows": rows])
        } else {
            for r in rows {
                let method = (r["method"] as? String ?? "").padding(toLength: 32, withPad: " ", startingAt: 0)
                var line = method + String(format: " %9.2f us/query  %8.1f ms", 1000 * (r["msPerQuery"] as? Double ?? 0), r["totalMs"] as? Double ?? 0)
                line += String(format: "  recall %.3f", r["recall"] as? Double ?? 0)
                if let a = r["ratioAgreement"] as? Double { line += String(format: "  ratio-match agreement %.3f", a) }
                line += String(format: "  speedup %.1fx", r["speedup"] as? Double ?? 1)
                output.out(line)
            }
        }
        return .success
    }
}
