import Foundation
@testable import Localizer
import PackFormat
import Testing

@Suite("Guided matching by projection")
struct ProjectionMatcherTests {
    static let camera = CameraIntrinsics(fx: 500, fy: 500, cx: 319.5, cy: 239.5)

    /// `bits` random bits of `d` flipped.
    static func flip(_ d: BinaryDescriptor, bits: Int, _ rng: inout TestRandom) -> BinaryDescriptor {
        var e = d
        var flipped = Set<Int>()
        while flipped.count < bits { flipped.insert(rng.int(0...255)) }
        for b in flipped { e[b / 64] ^= 1 << UInt64(b % 64) }
        return e
    }

    static func randomDescriptor(_ rng: inout TestRandom) -> BinaryDescriptor {
        BinaryDescriptor(rng.next(), rng.next(), rng.next(), rng.next())
    }

    /// A scene where every visible point has a look-alike elsewhere in the venue
    /// (behind the camera): the global ratio test cannot tell them apart, the
    /// projection can.
    struct LookAlikes {
        var map: MapData
        var pose: RigidTransform
        var keypoints: [Keypoint] = []
        var descriptors: [BinaryDescriptor] = []
        /// The true point of each keypoint.
        var truth: [Int] = []
    }

    static func lookAlikes(count: Int, seed: UInt64) throws -> LookAlikes {
        var scene = SyntheticScene(seed: seed)
        var rng = TestRandom(seed: seed)
        let pose = scene.pose()
        var points: [MapPoint] = []
        var descriptors: [BinaryDescriptor] = []
        var keypoints: [Keypoint] = []
        var queries: [BinaryDescriptor] = []
        var truth: [Int] = []
        func add(_ p: Vector3, _ d: BinaryDescriptor) -> Int {
            points.append(MapPoint(x: Float(p.x), y: Float(p.y), z: Float(p.z)))
            descriptors.append(d)
            return points.count - 1
        }
        for _ in 0..<count {
            let (pixel, world) = scene.visiblePoint(pose: pose, camera: camera, width: 640, height: 480)
            let d = randomDescriptor(&rng)
            truth.append(add(world, d))
            // The look-alike: behind the camera, a near copy of the descriptor.
            let behind = pose.inverse.apply(Vector3(scene.uniform(-3...3), scene.uniform(-3...3), -scene.uniform(1...10)))
            _ = add(behind, flip(d, bits: 1, &rng))
            keypoints.append(Keypoint(x: Float(pixel.u + scene.uniform(-1...1)), y: Float(pixel.v + scene.uniform(-1...1)),
                                      octave: 0, angle: 0, response: 1, size: 31))
            queries.append(flip(d, bits: 6, &rng))
        }
        // Unrelated points in view, with random descriptors.
        for _ in 0..<count {
            _ = add(scene.visiblePoint(pose: pose, camera: camera, width: 640, height: 480).world, randomDescriptor(&rng))
        }
        let map = try MapData(points: points, descriptors: descriptors, descriptorPoints: (0..<points.count).map { UInt32($0) }, keyframes: [])
        return LookAlikes(map: map, pose: pose, keypoints: keypoints, descriptors: queries, truth: truth)
    }

    @Test("Guided matching keeps the true points that look-alikes elsewhere hide from the global ratio test")
    func lookAlikesResolved() throws {
        let s = try Self.lookAlikes(count: 300, seed: 11)
        let exact = BruteForceMatcher(map: s.map)
        let global = exact.match(s.descriptors, options: MatchOptions(maxDistance: 64, ratio: 0.8))
        let guided = ProjectionMatcher(radius: 8).match(keypoints: s.keypoints, descriptors: s.descriptors, worldToCamera: s.pose,
                                                        camera: Self.camera, width: 640, height: 480, index: exact, points: s.map.points).matches
        let right = guided.filter { s.truth[$0.query] == $0.point }.count
        #expect(guided.count - right == 0, "guided matching paired keypoints with the wrong points")
        #expect(right >= 285, "guided matching found \(right) of 300 true points")
        // The global ratio test drops most of them: the scene is a real test of the point.
        #expect(global.count < 100, "the global ratio test kept \(global.count) of 300; the look-alikes should defeat it")
    }

    @Test("A map point goes to one keypoint only, the one with the closer descriptor")
    func oneToOne() throws {
        var rng = TestRandom(seed: 5)
        let d = Self.randomDescriptor(&rng)
        let map = try MapData(points: [MapPoint(x: 0, y: 0, z: 4)], descriptors: [d], descriptorPoints: [0], keyframes: [])
        let keypoints = [Keypoint(x: 321, y: 240, octave: 0, angle: 0, response: 1, size: 31),
                         Keypoint(x: 318, y: 238, octave: 0, angle: 0, response: 1, size: 31)]
        let far = Self.flip(d, bits: 12, &rng), near = Self.flip(d, bits: 4, &rng)
        for (order, expected) in [([far, near], 1), ([near, far], 0)] {
            let matches = ProjectionMatcher(radius: 8).match(keypoints: keypoints, descriptors: order, worldToCamera: .identity,
                                                             camera: Self.camera, width: 640, height: 480,
                                                             index: BruteForceMatcher(map: map), points: map.points).matches
            #expect(matches.map(\.query) == [expected])
            #expect(matches.first?.distance == 4)
        }
    }

    @Test("Points outside the radius, behind the camera or outside the hint are not candidates")
    func candidates() throws {
        var rng = TestRandom(seed: 9)
        let d = Self.randomDescriptor(&rng)
        // Point 0 projects to (319.5 + 500 * 0.1, 239.5) = (369.5, 239.5); point 1
        // is its mirror behind the camera; point 2 projects 12 px to the right of point 0.
        let points = [MapPoint(x: 0.5, y: 0, z: 5), MapPoint(x: -0.5, y: 0, z: -5), MapPoint(x: 0.62, y: 0, z: 5)]
        let map = try MapData(points: points, descriptors: [d, d, d], descriptorPoints: [0, 1, 2], keyframes: [])
        let keypoint = [Keypoint(x: 372, y: 241, octave: 0, angle: 0, response: 1, size: 31)]
        func run(_ allowed: PointSubset?) -> [Int] {
            ProjectionMatcher(radius: 8).match(keypoints: keypoint, descriptors: [d], worldToCamera: .identity, camera: Self.camera,
                                               width: 640, height: 480, index: BruteForceMatcher(map: map), points: map.points,
                                               allowed: allowed).matches.map(\.point)
        }
        #expect(run(nil) == [0])
        #expect(run(PointSubset(pointCount: 3, points: [1, 2])).isEmpty)
        #expect(run(PointSubset(pointCount: 3, points: [0])) == [0])
        // The points in view are reported, and a later round can be limited to them.
        let matcher = ProjectionMatcher(radius: 8)
        let first = matcher.match(keypoints: keypoint, descriptors: [d], worldToCamera: .identity, camera: Self.camera,
                                  width: 640, height: 480, index: BruteForceMatcher(map: map), points: map.points)
        #expect(first.projected == [0, 2])
        let limited = matcher.match(keypoints: keypoint, descriptors: [d], worldToCamera: .identity, camera: Self.camera,
                                    width: 640, height: 480, index: BruteForceMatcher(map: map), points: map.points, candidates: [2])
        #expect(limited.matches.isEmpty)
        #expect(limited.projected == [2])
    }

    @Test("With strong distortion, bearings far outside the view are not folded into the image")
    func distortionFold() throws {
        // k1 = -0.4 folds the radial map back past x ≈ 0.91: a point at x = 1.5
        // would land at u = 319.5 + 500 · 1.5 · (1 - 0.4 · 2.25) = 394.5, inside the image.
        let camera = CameraIntrinsics(fx: 500, fy: 500, cx: 319.5, cy: 239.5, k1: -0.4)
        var rng = TestRandom(seed: 3)
        let folded = Self.randomDescriptor(&rng), central = Self.randomDescriptor(&rng)
        let points = [MapPoint(x: 7.5, y: 0, z: 5), MapPoint(x: 0.1, y: 0.1, z: 5)]
        let map = try MapData(points: points, descriptors: [folded, central], descriptorPoints: [0, 1], keyframes: [])
        let centre = camera.project(x: 0.02, y: 0.02)
        let foldedPixel = camera.project(x: 1.5, y: 0)
        #expect(abs(foldedPixel.u - 394.5) < 1e-9, "the test's premise: the fold lands inside the image")
        let keypoints = [Keypoint(x: Float(foldedPixel.u), y: Float(foldedPixel.v), octave: 0, angle: 0, response: 1, size: 31),
                         Keypoint(x: Float(centre.u), y: Float(centre.v), octave: 0, angle: 0, response: 1, size: 31)]
        let matches = ProjectionMatcher(radius: 8).match(keypoints: keypoints, descriptors: [folded, central], worldToCamera: .identity,
                                                         camera: camera, width: 640, height: 480,
                                                         index: BruteForceMatcher(map: map), points: map.points).matches
        #expect(matches.map(\.point) == [1])
    }

    @Test("Pixels far outside the image or not a number have no cell (and do not trap)")
    func cellsOfFarPixels() {
        let grid = ProjectedGrid(cell: 8, width: 640, height: 480)
        // The margin cell around the image, and the last pixel.
        #expect(grid.cellIndex(-7.5, -7.5) == 0)
        #expect(grid.cellIndex(639, 479) == (479 / 8 + 1) * grid.columns + 639 / 8 + 1)
        for (u, v) in [(1e30, 5.0), (5.0, -1e30), (Double.nan, 5.0), (5.0, .infinity), (-8.5, 10.0), (660.0, 10.0)] {
            #expect(grid.cellIndex(u, v) == nil, "pixel (\(u), \(v))")
        }
    }
}
