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
        usage: vpspack bench-matching MAPIMAGE... --query IMAGE... [--map-features N] [--query-features N] [--configs 16x16r1,...] [--brute-only] [--popcount] [--json]

        Builds a map from the features of the MAPIMAGEs (one point per descriptor),
        matches the features of each --query image against it by brute force and
        through the index with several settings, and prints thread CPU time per query
        descriptor and recall (the share of queries whose true nearest neighbour,
        within 64 bits, the index finds).
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let bruteOnly = arguments.flag("--brute-only")
        let popcount = arguments.flag("--popcount")
        let configs: [(Int, Int, Int)] = try arguments.option("--configs", "comma-separated TABLESxBITSrRADIUS, e.g. 16x16r1") { text in
            let parsed = text.split(separator: ",").map { item -> (Int, Int, Int)? in
                let parts = item.split(whereSeparator: { $0 == "x" || $0 == "r" }).compactMap { Int($0) }
                guard parts.count == 3, [8, 16].contains(parts[1]), parts[0] >= 1, parts[0] * parts[1] <= 256, (0...1).contains(parts[2]) else { return nil }
                return (parts[1], parts[0], parts[2])
            }
            return parsed.contains { $0 == nil } ? nil : parsed.compactMap { $0 }
        } ?? [(16, 16, 1), (16, 12, 1), (16, 8, 1), (16, 16, 0)]
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

        if popcount {
            // Nearest distance of every query by a plain scan, with each popcount variant.
            let t0 = BenchClock.threadMilliseconds()
            var checksum = 0
            descriptors.withUnsafeBufferPointer { ds in
                for q in queries {
                    var best = 257
                    for d in ds { best = min(best, hammingDistance(q, d)) }
                    checksum &+= best
                }
            }
            let total = BenchClock.threadMilliseconds() - t0
            output.out(String(format: "%.2f ns per distance (%d queries x %d descriptors, checksum %d)",
                              total * 1e6 / Double(queries.count * descriptors.count), queries.count, descriptors.count, checksum))
            return .success
        }
        let brute = BruteForceMatcher(descriptors: descriptors, owners: owners, pointCount: points.count)
        var t0 = BenchClock.threadMilliseconds()
        let exact = brute.match(queries, options: MatchOptions())
        let bruteMs = (BenchClock.threadMilliseconds() - t0)
        var rows: [[String: Any]] = [["method": "brute force", "msPerQuery": bruteMs / Double(queries.count), "totalMs": bruteMs, "recall": 1.0, "speedup": 1.0]]
        if !bruteOnly {
            let relevant = exact.filter { $0.distance <= 64 }
            let ratioMatches = exact.filter { $0.distance <= 64 && $0.passesRatio(0.8) }
            for (keyBits, tables, radius) in configs {
                t0 = BenchClock.threadMilliseconds()
                let index = MapIndexTables.build(descriptors: descriptors, keyBits: keyBits, tableCount: tables)
                let buildMs = (BenchClock.threadMilliseconds() - t0)
                let matcher = HashIndexMatcher(index: index, exact: brute, probeRadius: radius, tablesUsed: tables)
                t0 = BenchClock.threadMilliseconds()
                let found = matcher.match(queries, options: MatchOptions())
                let indexMs = (BenchClock.threadMilliseconds() - t0)
                let byQuery = Dictionary(uniqueKeysWithValues: found.map { ($0.query, $0) })
                let hits = relevant.filter { byQuery[$0.query]?.distance == $0.distance }.count
                let close = exact.filter { $0.distance <= 40 }
                let closeHits = close.filter { byQuery[$0.query]?.distance == $0.distance }.count
                let agree = ratioMatches.filter { byQuery[$0.query]?.point == $0.point }.count
                rows.append(["method": "\(tables) tables x \(keyBits) bits, radius \(radius)", "msPerQuery": indexMs / Double(queries.count),
                             "totalMs": indexMs, "buildMs": buildMs, "recall": Double(hits) / Double(max(relevant.count, 1)),
                             "recall40": Double(closeHits) / Double(max(close.count, 1)),
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
                if let c = r["recall40"] as? Double { line += String(format: " (<= 40 bits: %.3f)", c) }
                if let a = r["ratioAgreement"] as? Double { line += String(format: "  ratio-match agreement %.3f", a) }
                line += String(format: "  speedup %.1fx", r["speedup"] as? Double ?? 1)
                output.out(line)
            }
        }
        return .success
    }
}
