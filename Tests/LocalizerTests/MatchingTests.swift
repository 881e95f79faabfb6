import Foundation
@testable import Localizer
import PackFormat
import Testing
import VPSImageIO

@Suite("Matching")
struct MatchingTests {
    /// Map descriptors from real features of textured scenes, one point per
    /// descriptor plus a second descriptor for every third point, and queries from
    /// rotated, scaled copies of the same scenes (so most have a true match).
    static let realistic: (map: MapData, queries: [BinaryDescriptor]) = {
        var descriptors: [BinaryDescriptor] = []
        var queries: [BinaryDescriptor] = []
        let extractor = FeatureExtractor(.init(maxFeatures: 1200))
        for seed in 1...3 as ClosedRange<UInt64> {
            let image = TestScenes.textured(width: 400, height: 300, seed: seed + 20)
            descriptors += extractor.extract(image).descriptors
            let (warped, _) = TestScenes.warp(image, degrees: 12 * Double(seed), scale: 0.85 + 0.1 * Double(seed))
            queries += FeatureExtractor(.init(maxFeatures: 400)).extract(warped).descriptors
        }
        var rng = TestRandom(seed: 4)
        var points: [MapPoint] = []
        var all: [BinaryDescriptor] = []
        var owners: [UInt32] = []
        for (i, d) in descriptors.enumerated() {
            points.append(MapPoint(x: Float(rng.uniform() * 60 - 30), y: Float(rng.uniform() * 8), z: Float(rng.uniform() * 60 - 30),
                                   floor: Int16(rng.int(0...2))))
            all.append(d)
            owners.append(UInt32(i))
            if i % 3 == 0 {
                // A second view of the point: a few bits flipped.
                var e = d
                for _ in 0..<rng.int(3...12) { let b = rng.int(0...255); e[b / 64] ^= 1 << UInt64(b % 64) }
                all.append(e)
                owners.append(UInt32(i))
            }
        }
        let map = try! MapData(points: points, descriptors: all, descriptorPoints: owners, keyframes: [])
        return (map, queries)
    }()

    @Test("Brute force finds the exact nearest and second-nearest distinct points")
    func bruteForce() {
        var rng = TestRandom(seed: 1)
        let descriptors = (0..<300).map { _ in rng.descriptor() }
        let owners = (0..<300).map { UInt32($0 / 3) } // 3 descriptors per point
        let matcher = BruteForceMatcher(descriptors: descriptors, owners: owners, pointCount: 100)
        let queries = (0..<40).map { _ in rng.descriptor() } + [descriptors[7], descriptors[200]]
        let matches = matcher.match(queries, options: MatchOptions())
        #expect(matches.count == queries.count)
        for m in matches {
            let q = queries[m.query]
            var perPoint = [Int](repeating: 999, count: 100)
            for (d, o) in zip(descriptors, owners) { perPoint[Int(o)] = min(perPoint[Int(o)], hammingDistance(q, d)) }
            let sorted = perPoint.enumerated().sorted { $0.element != $1.element ? $0.element < $1.element : $0.offset < $1.offset }
            #expect(m.distance == sorted[0].element)
            #expect(perPoint[m.point] == m.distance)
            #expect(m.secondDistance == sorted[1].element)
            #expect(m.secondPoint.map { perPoint[$0] } == sorted[1].element && m.secondPoint != m.point)
        }
        #expect(matches[40].point == 2 && matches[40].distance == 0)
        #expect(matches[41].point == 66 && matches[41].distance == 0)
    }

    @Test("Options drop far matches and ratio-test failures")
    func options() {
        let a = BinaryDescriptor(0, 0, 0, 0), b = BinaryDescriptor(0xFF, 0, 0, 0), c = BinaryDescriptor(0xFFFF, 0, 0, 0)
        let matcher = BruteForceMatcher(descriptors: [a, b, c], owners: [0, 1, 2], pointCount: 3)
        let q = BinaryDescriptor(0b1111, 0, 0, 0) // 4 from a, 4 from b, 12 from c
        #expect(matcher.match([q], options: MatchOptions(ratio: 0.8)).isEmpty)
        #expect(matcher.match([q], options: MatchOptions(maxDistance: 3)).isEmpty)
        let only = matcher.match([q], options: MatchOptions(ratio: 0.8, allowed: PointSubset(pointCount: 3, points: [1, 2])))
        #expect(only.map(\.point) == [1] && only.first?.secondPoint == 2)
        let single = matcher.match([q], options: MatchOptions(allowed: PointSubset(pointCount: 3, points: [2])))
        #expect(single.first?.secondPoint == nil && single.first?.secondDistance == 257)
    }

    /// Share of queries (with a true neighbour within `within`) whose nearest
    /// distance the index finds exactly.
    static func recall(_ index: [DescriptorMatch], _ exact: [DescriptorMatch], within: Int) -> (Double, Int) {
        let found = Dictionary(uniqueKeysWithValues: index.map { ($0.query, $0.distance) })
        let relevant = exact.filter { $0.distance <= within }
        let hits = relevant.filter { found[$0.query] == $0.distance }.count
        return (Double(hits) / Double(max(relevant.count, 1)), relevant.count)
    }

    @Test("The hash index finds at least 90 % of true nearest neighbours on real descriptors")
    func indexRecall() {
        let (map, queries) = Self.realistic
        let exact = BruteForceMatcher(map: map).match(queries, options: MatchOptions())
        let index = HashIndexMatcher(map: map).match(queries, options: MatchOptions())
        let (recall, relevant) = Self.recall(index, exact, within: 64)
        #expect(relevant >= 300, "only \(relevant) queries have a neighbour within 64 bits")
        #expect(recall >= 0.9, "recall \(recall) over \(relevant) queries")
        // Ratio-test matches, what the pose stage uses, agree even more.
        let exactRatio = exact.filter { $0.passesRatio(0.8) && $0.distance <= 64 }
        let indexByQuery = Dictionary(uniqueKeysWithValues: index.map { ($0.query, $0) })
        let agree = exactRatio.filter { indexByQuery[$0.query]?.point == $0.point }.count
        #expect(Double(agree) >= 0.95 * Double(exactRatio.count), "\(agree) of \(exactRatio.count) ratio-test matches")
    }

    @Test("Index results are consistent: real distances, distinct points, never better than exact")
    func indexConsistency() {
        let (map, queries) = Self.realistic
        let exact = BruteForceMatcher(map: map)
        let exactByQuery = Dictionary(uniqueKeysWithValues: exact.match(queries, options: MatchOptions()).map { ($0.query, $0) })
        for radius in [0, 1] {
            let matcher = HashIndexMatcher(map: map, probeRadius: radius)
            let matches = matcher.match(queries, options: MatchOptions())
            for m in matches {
                let q = queries[m.query]
                let starts = exact.pointStarts
                // The distance to one of the point's descriptors (the nearest one the probes found).
                let distances = (starts[m.point]..<starts[m.point + 1]).map { hammingDistance(q, map.descriptors[$0]) }
                #expect(distances.contains(m.distance))
                #expect(m.distance >= exactByQuery[m.query]!.distance)
                if let s = m.secondPoint { #expect(s != m.point && m.secondDistance >= m.distance) }
            }
            // Radius 0 finds every neighbour within tablesUsed - 1 bits (pigeonhole), radius 1 within 2 tablesUsed - 1.
            let guaranteed = exactByQuery.values.filter { $0.distance < matcher.tablesUsed * (radius + 1) }
            #expect(!guaranteed.isEmpty)
            for e in guaranteed {
                #expect(matches.first { $0.query == e.query }?.distance == e.distance)
            }
        }
    }

    @Test("Restricted matching returns only allowed points, exhaustively when the subset is small")
    func restricted() {
        let (map, queries) = Self.realistic
        let grid = SpatialGrid(points: map.points)
        let region = MapRegion(center: SIMD3(5, 2, -5), radius: 12, floors: 0...1)
        let allowed = try! #require(grid.points(in: region))
        #expect(allowed.count > 50 && allowed.count < map.points.count / 4)
        let exact = BruteForceMatcher(map: map).match(queries, options: MatchOptions(allowed: allowed))
        // Small subset: the index matcher scans it exhaustively and equals brute force.
        let small = HashIndexMatcher(map: map).match(queries, options: MatchOptions(allowed: allowed))
        #expect(small == exact)
        // Forced through the index: only allowed points come back.
        let probed = HashIndexMatcher(map: map, bruteForceLimit: 0).match(queries, options: MatchOptions(allowed: allowed))
        #expect(!probed.isEmpty)
        for m in probed {
            #expect(allowed.contains(m.point))
            if let s = m.secondPoint { #expect(allowed.contains(s)) }
        }
    }

    @Test("The spatial grid selects exactly the points a naive filter selects")
    func grid() {
        var rng = TestRandom(seed: 8)
        let points = (0..<3000).map { _ in
            MapPoint(x: Float(rng.uniform() * 300 - 150), y: Float(rng.uniform() * 20 - 5), z: Float(rng.uniform() * 300 - 150), floor: Int16(rng.int(-2...4)))
        }
        let grid = SpatialGrid(points: points)
        for _ in 0..<40 {
            let region = MapRegion(center: SIMD3(Float(rng.uniform() * 300 - 150), Float(rng.uniform() * 10), Float(rng.uniform() * 300 - 150)),
                                   radius: Float(rng.uniform() * 120), floors: rng.int(0...1) == 0 ? nil : (rng.int(-2...1)...rng.int(1...4)))
            let naive = points.indices.filter { region.contains(points[$0].position, floor: Int(points[$0].floor)) }.map { UInt32($0) }
            #expect(grid.points(in: region)?.points == naive)
        }
        let floorsOnly = grid.points(in: MapRegion(floors: 2...2))!
        #expect(floorsOnly.points == points.indices.filter { points[$0].floor == 2 }.map { UInt32($0) })
        #expect(grid.points(in: MapRegion()) == nil)
    }

    @Test("Hints parse, clamp the radius to 1...100 m and reject bad values")
    func hints() throws {
        #expect(try MapRegion.parse(hint: nil, radius: nil, floors: nil) == nil)
        let r = try #require(try MapRegion.parse(hint: "1.5, -2,3", radius: nil, floors: "-1,2"))
        #expect(r.center == SIMD3(1.5, -2, 3) && r.radius == 25 && r.floors == -1...2)
        #expect(try MapRegion.parse(hint: "0,0,0", radius: "500", floors: nil)?.radius == 100)
        #expect(try MapRegion.parse(hint: "0,0,0", radius: "0.2", floors: nil)?.radius == 1)
        #expect(MapRegion(radius: 1000).radius == 100)
        for (hint, radius, floors, option) in [("1,2", nil, nil, "--hint"), ("a,b,c", nil, nil, "--hint"), ("1,2,nan", nil, nil, "--hint"),
                                               ("0,0,0", "-3", nil, "--radius"), (nil, "5", nil, "--radius"),
                                               (nil, nil, "3,1", "--floors"), (nil, nil, "1", "--floors"), (nil, nil, "1,x", "--floors")] as [(String?, String?, String?, String)] {
            do {
                _ = try MapRegion.parse(hint: hint, radius: radius, floors: floors)
                Issue.record("accepted hint \(hint ?? "-") radius \(radius ?? "-") floors \(floors ?? "-")")
            } catch {
                #expect(error.option == option)
            }
        }
    }

    @Test("A localization map loads from the map files and answers hints")
    func localizationMap() throws {
        let (map, queries) = Self.realistic
        let files = try LocalizationMap.files(points: map.points, descriptors: map.descriptors, owners: map.descriptorPoints, keyframes: [])
        let loaded = try LocalizationMap(files: files)
        #expect(loaded.data.points == map.points && loaded.data.descriptors == map.descriptors)
        #expect(loaded.allowedPoints(in: nil) == nil)
        let allowed = loaded.allowedPoints(in: MapRegion(center: .zero, radius: 10))
        #expect((allowed?.count ?? 0) > 0)
        let matches = loaded.matcher.match(queries, options: MatchOptions(ratio: 0.8, allowed: allowed))
        #expect(matches.allSatisfy { allowed!.contains($0.point) })
    }
}
