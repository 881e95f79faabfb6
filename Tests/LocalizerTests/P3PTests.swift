import Testing
import Localizer

@Suite struct P3PTests {
    /// Noise-free triples from many random poses: one solution must match the truth to about 1e-9.
    @Test func recoversRandomPosesExactly() throws {
        var scene = SyntheticScene(seed: 1)
        let camera = CameraIntrinsics(fx: 500, fy: 500, cx: 320, cy: 240)
        var worst = 0.0
        var misses = 0
        let trials = 20_000
        for _ in 0..<trials {
            let truth = scene.pose()
            var bearings: [Vector3] = []
            var points: [Vector3] = []
            for _ in 0..<3 {
                let (pixel, world) = scene.visiblePoint(pose: truth, camera: camera, width: 640, height: 480)
                bearings.append(camera.bearing(u: pixel.u, v: pixel.v)!)
                points.append(world)
            }
            let solutions = P3P.solve(bearings: (bearings[0], bearings[1], bearings[2]), points: (points[0], points[1], points[2]))
            let errors = solutions.map { s in
                max(s.rotation.maxDifference(truth.rotation), (s.translation - truth.translation).norm / max(1, truth.translation.norm))
            }
            guard let best = errors.min(), best < 1e-6 else {
                misses += 1
                continue
            }
            worst = max(worst, best)
        }
        // A handful of near-degenerate random triples may lose precision; none may be lost entirely.
        #expect(misses == 0, "no solution near the truth for \(misses) of \(trials) triples")
        #expect(worst < 2e-9, "worst error \(worst)")
    }

    @Test func everySolutionReprojectsTheThreePoints() {
        var scene = SyntheticScene(seed: 2)
        let camera = CameraIntrinsics(fx: 800, fy: 800, cx: 500, cy: 400)
        var checked = 0
        for _ in 0..<2000 {
            let truth = scene.pose()
            var bearings: [Vector3] = []
            var points: [Vector3] = []
            for _ in 0..<3 {
                let (pixel, world) = scene.visiblePoint(pose: truth, camera: camera, width: 1000, height: 800)
                bearings.append(camera.bearing(u: pixel.u, v: pixel.v)!)
                points.append(world)
            }
            for s in P3P.solve(bearings: (bearings[0], bearings[1], bearings[2]), points: (points[0], points[1], points[2])) {
                #expect(abs(s.rotation.determinant - 1) < 1e-9)
                for k in 0..<3 {
                    let p = s.apply(points[k])
                    #expect(p.z > 0)
                    #expect(p.normalized.angle(to: bearings[k]) < 1e-8)
                }
                checked += 1
            }
        }
        #expect(checked >= 2000)
    }

    @Test func collinearPointsGiveNoSolution() {
        let y = Vector3(0, 0, 1)
        let solutions = P3P.solve(
            bearings: (y, Vector3(0.1, 0, 1).normalized, Vector3(0.2, 0, 1).normalized),
            points: (Vector3(0, 0, 5), Vector3(1, 0, 5), Vector3(2, 0, 5))
        )
        #expect(solutions.isEmpty)
    }
}
