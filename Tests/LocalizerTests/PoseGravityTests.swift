import Foundation
import Testing
import Localizer

@Suite struct PoseGravityTests {
    /// The gravity an ARKit-style device reports for a world-to-camera pose:
    /// pack down (0, -1, 0) in ARKit camera axes.
    func measuredGravity(_ pose: RigidTransform) -> Vector3 {
        let g = pose.rotation * Vector3(0, -1, 0)  // OpenCV camera axes
        return Vector3(g.x, -g.y, -g.z)
    }

    @Test func acceptsTheTruthAndRejectsATiltedPose() throws {
        var scene = SyntheticScene(seed: 12)
        for _ in 0..<50 {
            let truth = scene.pose()
            let prior = try GravityPrior(cameraGravity: measuredGravity(truth), toleranceDegrees: 3)
            #expect(prior.accepts(truth))
            #expect(prior.disagreementDegrees(truth) < 1e-9)
            // Tilt by 6° about a camera axis perpendicular to gravity: the implied gravity moves by 6°.
            let down = truth.rotation * Vector3(0, -1, 0)
            let axis = down.cross(Vector3(0.3, 0.5, 0.8)).normalized
            let tilted = RigidTransform(rotation: Matrix3.rotation(axisAngle: (6 * Double.pi / 180) * axis), translation: .zero) * truth
            #expect(!prior.accepts(tilted))
            #expect(abs(prior.disagreementDegrees(tilted) - 6) < 1e-6)
            // A pure turn about the vertical leaves gravity unchanged.
            let turned = truth * RigidTransform(rotation: Matrix3.rotation(axisAngle: Vector3(0, 0.7, 0)), translation: .zero)
            #expect(prior.accepts(turned))
        }
    }

    /// Two consistent groups of matches: the larger one fits a pose whose
    /// gravity is wrong. With the measured gravity the estimator must pick the
    /// smaller, right group.
    @Test func priorPicksTheHypothesisThatAgreesWithGravity() throws {
        var scene = SyntheticScene(seed: 13)
        let camera = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5)
        let right = scene.pose()
        // The wrong pose: the same camera rolled by 25°.
        let wrong = RigidTransform(rotation: Matrix3.rotation(axisAngle: Vector3(0, 0, 25 * Double.pi / 180)), translation: Vector3(0.3, 0, 0)) * right
        var pixels: [SIMD2<Double>] = []
        var points: [Vector3] = []
        for k in 0..<200 {
            let pose = k < 120 ? wrong : right
            let (pixel, world) = scene.visiblePoint(pose: pose, camera: camera, width: 640, height: 480)
            pixels.append(SIMD2(pixel.u + 0.3 * scene.gaussian(), pixel.v + 0.3 * scene.gaussian()))
            points.append(world)
        }
        let problem = PoseProblem.fromPixels(pixels, points: points, camera: camera).problem
        let unaided = try #require(PoseEstimator().estimate(problem))
        #expect(rotationErrorDegrees(unaided.pose, wrong) < 0.2, "without gravity the larger group wins")

        var options = PoseEstimatorOptions()
        options.gravity = try GravityPrior(cameraGravity: measuredGravity(right), toleranceDegrees: 3)
        let aided = try #require(PoseEstimator(options: options).estimate(problem))
        #expect(rotationErrorDegrees(aided.pose, right) < 0.2)
        #expect(positionError(aided.pose, right) < 0.05)
        #expect(aided.inlierCount >= 75 && aided.inlierCount <= 85)
    }

    @Test func aGravityThatFitsNothingGivesNoPose() throws {
        let data = SyntheticCorrespondences(seed: 14, count: 200, outlierRatio: 0.3, noise: 0.5)
        var g = measuredGravity(data.truth)
        // Turn the measured gravity by 40°.
        g = Matrix3.rotation(axisAngle: Vector3(0.7, 0, 0)) * g
        var options = PoseSolverOptions()
        options.estimator.gravity = try GravityPrior(cameraGravity: g)
        let outcome = PoseSolver(options: options).solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        #expect(!outcome.localized)
    }

    /// The upright two-point solver recovers random poses exactly from their true gravity.
    @Test func uprightSolverIsExactOnRandomPoses() {
        var scene = SyntheticScene(seed: 15)
        let camera = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5)
        var worst = 0.0
        var misses = 0
        for _ in 0..<5000 {
            let truth = scene.pose()
            let a = scene.visiblePoint(pose: truth, camera: camera, width: 640, height: 480)
            let b = scene.visiblePoint(pose: truth, camera: camera, width: 640, height: 480)
            let gravity = truth.rotation * Vector3(0, -1, 0)
            let solutions = UprightP2P.solve(
                bearings: (camera.bearing(u: a.pixel.u, v: a.pixel.v)!, camera.bearing(u: b.pixel.u, v: b.pixel.v)!),
                points: (a.world, b.world), gravity: gravity
            )
            #expect(solutions.count <= 2)
            let errors = solutions.map { max($0.rotation.maxDifference(truth.rotation), ($0.translation - truth.translation).norm / max(1, truth.translation.norm)) }
            guard let best = errors.min(), best < 1e-6 else { misses += 1; continue }
            worst = max(worst, best)
            for s in solutions { #expect(GravityPrior.impliedGravity(s).angle(to: gravity) < 1e-9) }
        }
        #expect(misses == 0, "\(misses) of 5000 pairs lost their pose")
        #expect(worst < 1e-9, "worst error \(worst)")
    }

    /// With gravity, RANSAC samples pairs: at 80 % outliers it needs far fewer samples and still finds the pose.
    @Test func gravityMakesRansacCheaperAtHighOutlierRatios() throws {
        let data = SyntheticCorrespondences(seed: 16, count: 400, outlierRatio: 0.8, noise: 0.5)
        let plain = try #require(PoseEstimator().estimate(data.problem))
        var options = PoseEstimatorOptions()
        // A measured gravity 1° off the truth, as a real sensor would give.
        let g = Matrix3.rotation(axisAngle: Vector3(0.0175, 0, 0)) * measuredGravity(data.truth)
        options.gravity = try GravityPrior(cameraGravity: g)
        let aided = try #require(PoseEstimator(options: options).estimate(data.problem))
        #expect(aided.iterations * 3 < plain.iterations, "\(aided.iterations) samples with gravity, \(plain.iterations) without")
        #expect(rotationErrorDegrees(aided.pose, data.truth) < 0.1)
        #expect(positionError(aided.pose, data.truth) < 0.05)
    }

    /// A plane of points fits a wrongly tilted camera over part of the image;
    /// with a gravity 30° off, the solver must report nothing, never that pose.
    @Test func aWrongGravityOnAPlaneIsNotLocalized() throws {
        var scene = SyntheticScene(seed: 17)
        let camera = CameraIntrinsics(fx: 520, fy: 520, cx: 319.5, cy: 239.5)
        let truth = WallScene.pose(position: Vector3(0.3, 1.6, 0), yaw: 8, pitch: 4)
        var pixels: [SIMD2<Double>] = []
        var points: [Vector3] = []
        for _ in 0..<400 {
            // Points on the wall z = -3 in view.
            let u = scene.uniform(0...639), v = scene.uniform(0...479)
            let d = truth.rotation.transposed * Vector3((u - 319.5) / 520, (v - 239.5) / 520, 1)
            let c = truth.cameraCenter
            let s = (-3 - c.z) / d.z
            points.append(c + s * d)
            pixels.append(SIMD2(u + 0.5 * scene.gaussian(), v + 0.5 * scene.gaussian()))
        }
        let g = measuredGravity(truth)
        var options = PoseSolverOptions()
        options.estimator.gravity = try GravityPrior(cameraGravity: g)
        let right = PoseSolver(options: options).solve(pixels: pixels, points: points, camera: camera, width: 640, height: 480)
        #expect(right.localized)
        options.estimator.gravity = try GravityPrior(cameraGravity: Matrix3.rotation(axisAngle: Vector3(30 * Double.pi / 180, 0, 0)) * g)
        let wrong = PoseSolver(options: options).solve(pixels: pixels, points: points, camera: camera, width: 640, height: 480)
        #expect(!wrong.localized, "a wrong gravity gave a pose off by \((wrong.pose.map { ($0.position - truth.cameraCenter).norm }) ?? 0) m")
        #expect(wrong.pose == nil)
    }

    @Test func zeroOrNonFiniteGravityIsRejected() {
        #expect(throws: LocalizerError.self) { try GravityPrior(cameraGravity: .zero) }
        #expect(throws: LocalizerError.self) { try GravityPrior(cameraGravity: Vector3(.nan, -1, 0)) }
    }
}
