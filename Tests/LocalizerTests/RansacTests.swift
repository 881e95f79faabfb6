import Testing
import Localizer

@Suite struct RansacTests {
    @Test(arguments: [0.1, 0.3, 0.5, 0.7, 0.8, 0.9])
    func recoversPoseAmongOutliers(outlierRatio: Double) throws {
        for seed in UInt64(1)...3 {
            let data = SyntheticCorrespondences(seed: seed &* 7919 &+ UInt64(outlierRatio * 100), count: 400, outlierRatio: outlierRatio, noise: 0.5)
            let estimate = try #require(PoseEstimator().estimate(data.problem), "no pose at \(outlierRatio) outliers, seed \(seed)")
            let rotation = rotationErrorDegrees(estimate.pose, data.truth)
            let position = positionError(estimate.pose, data.truth)
            #expect(rotation < 0.1, "rotation error \(rotation)° at \(outlierRatio) outliers")
            #expect(position < 0.05, "position error \(position) m at \(outlierRatio) outliers")
            let trueInliers = data.isInlier.filter { $0 }.count
            // Nearly every true correspondence is an inlier and few outliers slip in.
            var agreed = 0
            var falseInliers = 0
            for i in data.isInlier.indices where estimate.inliers[i] {
                if data.isInlier[i] { agreed += 1 } else { falseInliers += 1 }
            }
            #expect(agreed >= trueInliers * 95 / 100, "found \(agreed) of \(trueInliers) inliers")
            #expect(falseInliers <= max(3, trueInliers / 20), "\(falseInliers) outliers accepted")
            #expect(estimate.meanReprojectionError < 1.2)
        }
    }

    /// Pixels from a strongly distorted lens: undistortion before P3P keeps the pose exact.
    @Test func distortedPixelsGiveTheSamePose() throws {
        let lens = CameraIntrinsics(fx: 600, fy: 610, cx: 322, cy: 241, k1: -0.28, k2: 0.09, p1: 0.001, p2: -0.0007)
        let data = SyntheticCorrespondences(seed: 12, count: 300, outlierRatio: 0.5, noise: 0, camera: lens)
        let estimate = try #require(PoseEstimator().estimate(data.problem))
        #expect(rotationErrorDegrees(estimate.pose, data.truth) < 1e-6)
        #expect(positionError(estimate.pose, data.truth) < 1e-7)
        // Ignoring the distortion gives a visibly worse fit.
        var plain = data
        plain.camera = CameraIntrinsics(fx: 600, fy: 610, cx: 322, cy: 241)
        let wrong = try #require(PoseEstimator().estimate(plain.problem))
        #expect(wrong.inlierCount < estimate.inlierCount * 9 / 10 || wrong.meanReprojectionError > 0.5, "ignoring k1 = -0.28 still gave \(wrong.inlierCount) inliers at \(wrong.meanReprojectionError) px")
    }

    @Test func noiseFreeDataGivesAnExactPose() throws {
        let data = SyntheticCorrespondences(seed: 11, count: 200, outlierRatio: 0.5, noise: 0)
        let estimate = try #require(PoseEstimator().estimate(data.problem))
        #expect(rotationErrorDegrees(estimate.pose, data.truth) < 1e-6)
        #expect(positionError(estimate.pose, data.truth) < 1e-7)
        #expect(estimate.meanReprojectionError < 1e-6)
    }

    @Test func adaptiveStoppingDrawsFewSamplesWhenInliersDominate() throws {
        let easy = SyntheticCorrespondences(seed: 5, count: 300, outlierRatio: 0.1, noise: 0.5)
        let hard = SyntheticCorrespondences(seed: 5, count: 300, outlierRatio: 0.8, noise: 0.5)
        let e = try #require(PoseEstimator().estimate(easy.problem))
        let h = try #require(PoseEstimator().estimate(hard.problem))
        // log(1e-4)/log(1 - 0.9³) is 7; 30 is the floor. With 20 % inliers it needs about 1150.
        #expect(e.iterations == 30)
        #expect(h.iterations > 300 && h.iterations < 10_000)
    }

    @Test func minimumInlierRatioEndsTheSearchOnRandomMatches() throws {
        // Nothing but outliers: without a floor, RANSAC never becomes confident,
        // draws every allowed sample and returns some three-point fit. With a
        // floor of 50 % inliers, Wald's test discards every hypothesis early and
        // the search stops after log(1e-4)/log(1 - 0.5³) = 69 samples with nothing.
        let noise = SyntheticCorrespondences(seed: 21, count: 300, outlierRatio: 1, noise: 0)
        var options = PoseEstimatorOptions()
        options.maxIterations = 2000
        let open = try #require(PoseEstimator(options: options).estimate(noise.problem))
        #expect(open.iterations == 2000)
        #expect(open.inlierCount < 30)
        options.minInlierRatio = 0.5
        let capped = PoseEstimator(options: options).estimate(noise.problem)
        #expect(capped?.inlierCount == nil, "no pose has half the matches as inliers")
        // A real pose above the floor is still found.
        let data = SyntheticCorrespondences(seed: 21, count: 300, outlierRatio: 0.4, noise: 0.5)
        let found = try #require(PoseEstimator(options: options).estimate(data.problem))
        #expect(rotationErrorDegrees(found.pose, data.truth) < 0.1)
        #expect(positionError(found.pose, data.truth) < 0.05)
        #expect(found.iterations <= 69)
    }

    @Test func innerRansacKeepsTheAccuracyOfLocalOptimisation() throws {
        // The inner non-minimal RANSAC must never leave a worse model than plain
        // iterated least squares: same data, with and without it.
        for seed in 31...35 as ClosedRange<UInt64> {
            let data = SyntheticCorrespondences(seed: seed, count: 400, outlierRatio: 0.7, noise: 1)
            var options = PoseEstimatorOptions()
            let with = try #require(PoseEstimator(options: options).estimate(data.problem))
            options.innerSamples = 0
            let without = try #require(PoseEstimator(options: options).estimate(data.problem))
            #expect(rotationErrorDegrees(with.pose, data.truth) < 0.1)
            #expect(positionError(with.pose, data.truth) < 0.05)
            #expect(with.inlierCount >= without.inlierCount - 2, "seed \(seed): \(with.inlierCount) inliers with the inner RANSAC, \(without.inlierCount) without")
        }
    }

    @Test func sameSeedSamePose() throws {
        let data = SyntheticCorrespondences(seed: 8, count: 300, outlierRatio: 0.6, noise: 1)
        let a = try #require(PoseEstimator().estimate(data.problem))
        let b = try #require(PoseEstimator().estimate(data.problem))
        #expect(a.pose == b.pose)
        #expect(a.inliers == b.inliers)
    }

    @Test func tooFewCorrespondencesGiveNoPose() {
        let data = SyntheticCorrespondences(seed: 3, count: 2, outlierRatio: 0, noise: 0)
        #expect(PoseEstimator().estimate(data.problem) == nil)
    }
}
