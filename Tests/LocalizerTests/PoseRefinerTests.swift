import Testing
import Localizer

@Suite struct PoseRefinerTests {
    /// With noisy inliers the refined pose is closer to the truth than the
    /// pose from a minimal sample, and its reprojection error is smaller.
    @Test func refinementReducesErrorUnderNoise() throws {
        var improvedRotation = 0
        var improvedPosition = 0
        let trials = 20
        for seed in 0..<UInt64(trials) {
            let data = SyntheticCorrespondences(seed: 100 + seed, count: 150, outlierRatio: 0, noise: 1.0)
            let problem = data.problem
            var bearings: [Vector3] = []
            for k in 0..<3 { bearings.append(Vector3(problem.observations[k].x, problem.observations[k].y, 1).normalized) }
            let minimal = P3P.solve(bearings: (bearings[0], bearings[1], bearings[2]), points: (problem.points[0], problem.points[1], problem.points[2]))
            let start = try #require(minimal.min { positionError($0, data.truth) < positionError($1, data.truth) })
            let refined = PoseRefiner.refine(start, problem: problem, indices: Array(0..<problem.count), loss: .huber(2))
            func rms(_ pose: RigidTransform) -> Double {
                let total = (0..<problem.count).map { problem.squaredError(pose, $0) ?? 1e6 }.reduce(0, +)
                return (total / Double(problem.count)).squareRoot()
            }
            #expect(rms(refined) < rms(start))
            #expect(rms(refined) < 1.6, "RMS \(rms(refined)) px for 1 px noise")
            if rotationErrorDegrees(refined, data.truth) < rotationErrorDegrees(start, data.truth) { improvedRotation += 1 }
            if positionError(refined, data.truth) < positionError(start, data.truth) { improvedPosition += 1 }
        }
        #expect(improvedRotation >= trials * 9 / 10)
        #expect(improvedPosition >= trials * 9 / 10)
    }

    /// A perturbed pose converges back to the exact one on noise-free data.
    @Test func convergesFromAPerturbedPose() {
        let data = SyntheticCorrespondences(seed: 42, count: 100, outlierRatio: 0, noise: 0)
        let problem = data.problem
        let perturbation = RigidTransform(rotation: Matrix3.rotation(axisAngle: Vector3(0.03, -0.02, 0.04)), translation: Vector3(0.1, -0.05, 0.2))
        let start = perturbation * data.truth
        let refined = PoseRefiner.refine(start, problem: problem, indices: Array(0..<problem.count), loss: .squared, maxIterations: 50)
        #expect(rotationErrorDegrees(refined, data.truth) < 1e-7)
        #expect(positionError(refined, data.truth) < 1e-8)
    }

    /// The robust loss keeps a few gross outliers from dragging the pose.
    @Test func robustLossResistsGrossOutliers() {
        let data = SyntheticCorrespondences(seed: 43, count: 100, outlierRatio: 0.05, noise: 0.3)
        let problem = data.problem
        let all = Array(0..<problem.count)
        let robust = PoseRefiner.refine(data.truth, problem: problem, indices: all, loss: .cauchy(1), maxIterations: 50)
        let plain = PoseRefiner.refine(data.truth, problem: problem, indices: all, loss: .squared, maxIterations: 50)
        #expect(positionError(robust, data.truth) < positionError(plain, data.truth))
        #expect(positionError(robust, data.truth) < 0.05)
    }
}
