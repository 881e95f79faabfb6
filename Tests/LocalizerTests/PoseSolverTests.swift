import Foundation
import Testing
import Localizer

@Suite struct PoseSolverTests {
    /// Random pixels paired with random map points: whatever their number,
    /// they must never come back localized.
    @Test(arguments: [12, 30, 100, 300, 1000, 3000])
    func pureOutliersNeverLocalize(count: Int) throws {
        var worst = 0.0
        var worstSignificance = -Double.infinity
        var mostInliers = 0
        let seeds = count >= 1000 ? 2 : 10
        for seed in 0..<UInt64(seeds) {
            let data = SyntheticCorrespondences(seed: 900 + seed &* 31 &+ UInt64(count), count: count, outlierRatio: 1, noise: 0)
            let outcome = PoseSolver().solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
            #expect(!outcome.localized, "\(count) random matches localized with confidence \(outcome.confidence)")
            #expect(outcome.pose == nil)
            #expect(outcome.reason != nil)
            worst = max(worst, outcome.confidence)
            worstSignificance = max(worstSignificance, outcome.confidenceParts?.significance ?? -.infinity)
            mostInliers = max(mostInliers, outcome.estimate?.inlierCount ?? 0)
        }
        #expect(worst < 0.1, "random matches reached confidence \(worst)")
        // Far from significant: not even one order of magnitude below a false alarm.
        #expect(worstSignificance < 1, "random matches reached significance \(worstSignificance)")
        #expect(mostInliers < 12, "random matches gathered \(mostInliers) inliers")
    }

    @Test(arguments: [0.3, 0.5, 0.8])
    func genuineMatchesLocalizeConfidently(outlierRatio: Double) throws {
        let data = SyntheticCorrespondences(seed: 77, count: 300, outlierRatio: outlierRatio, noise: 0.7)
        let outcome = PoseSolver().solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        #expect(outcome.localized, "not localized: \(outcome.reason ?? "")")
        let parts = try #require(outcome.confidenceParts)
        #expect(outcome.confidence > 0.6)
        #expect(parts.evidence == 1 && parts.spread == 1 && parts.fit > 0.9)
        let pose = try #require(outcome.pose)
        #expect((pose.position - data.truth.cameraCenter).norm < 0.05)
    }

    /// Ten true matches drowned in 990 random ones are too weak to report.
    @Test func aFewTrueMatchesAmongManyOutliersAreNotEnough() {
        let data = SyntheticCorrespondences(seed: 78, count: 1000, outlierRatio: 0.99, noise: 0.5)
        let outcome = PoseSolver().solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        #expect(!outcome.localized)
        #expect(outcome.pose == nil)
    }

    /// A consistent cluster in one corner of the image (a poster seen in
    /// another room) among random matches is rejected for its poor spread.
    @Test func aConsistentPatchAloneIsRejected() throws {
        var data = SyntheticCorrespondences(seed: 79, count: 500, outlierRatio: 0.9, noise: 0.5)
        var scene = SyntheticScene(seed: 80)
        // Replace the true matches by true matches inside a 100×80 pixel patch.
        for i in data.isInlier.indices where data.isInlier[i] {
            let u = scene.uniform(40...140), v = scene.uniform(40...120)
            let n = data.camera.undistort(u: u, v: v)!
            let depth = scene.uniform(4...5)
            data.points[i] = data.truth.inverse.apply(Vector3(n.x * depth, n.y * depth, depth))
            data.pixels[i] = SIMD2(u, v)
        }
        let outcome = PoseSolver().solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        let parts = try #require(outcome.confidenceParts)
        #expect(parts.spread <= 0.6)
        #expect(!outcome.localized, "a patch localized with confidence \(outcome.confidence)")
    }

    /// Two look-alike places: the matches hold two distinct poses of similar
    /// support. Neither is reported.
    @Test func twoDistinctPosesOfSimilarSupportAreAmbiguous() throws {
        var scene = SyntheticScene(seed: 82)
        let camera = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5)
        let first = scene.pose()
        let second = RigidTransform(rotation: .identity, translation: Vector3(2, 0, 0)) * first
        var pixels: [SIMD2<Double>] = []
        var points: [Vector3] = []
        for k in 0..<260 {
            let pose = k < 110 ? first : (k < 200 ? second : first)
            let (pixel, world) = scene.visiblePoint(pose: pose, camera: camera, width: 640, height: 480)
            // The last 60 are outliers.
            pixels.append(k < 200 ? SIMD2(pixel.u + 0.5 * scene.gaussian(), pixel.v + 0.5 * scene.gaussian()) : SIMD2(scene.uniform(0...639), scene.uniform(0...479)))
            points.append(world)
        }
        let outcome = PoseSolver().solve(pixels: pixels, points: points, camera: camera, width: 640, height: 480)
        #expect(!outcome.localized)
        #expect(outcome.pose == nil)
        #expect(outcome.reason?.hasPrefix("ambiguous") == true, "\(outcome.reason ?? "")")
        // With one group much weaker than the other, the strong one stands.
        let dominant = PoseSolver().solve(pixels: Array(pixels[0..<110] + pixels[190..<260]), points: Array(points[0..<110] + points[190..<260]),
                                          camera: camera, width: 640, height: 480)
        #expect(dominant.localized, "\(dominant.reason ?? "")")
    }

    @Test func thresholdGatesTheDecision() throws {
        let data = SyntheticCorrespondences(seed: 81, count: 300, outlierRatio: 0.85, noise: 0.7)
        var options = PoseSolverOptions()
        let loose = PoseSolver(options: options).solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        #expect(loose.localized)
        options.minConfidence = min(1, loose.confidence + 0.01)
        let strict = PoseSolver(options: options).solve(pixels: data.pixels, points: data.points, camera: data.camera, width: 640, height: 480)
        #expect(!strict.localized)
        #expect(strict.reason?.contains("below the threshold") == true)
    }

    @Test func invalidOptionsAreRejected() {
        var options = PoseSolverOptions()
        options.minConfidence = 1.5
        #expect(throws: LocalizerError.self) { try options.validate() }
        options.minConfidence = .nan
        #expect(throws: LocalizerError.self) { try options.validate() }
        options.minConfidence = 0.4
        options.estimator.threshold = -1
        #expect(throws: LocalizerError.self) { try options.validate() }
    }

    @Test func binomialTailMatchesDirectSums() {
        // P[Bin(10, 0.5) >= 8] = (45 + 10 + 1) / 1024.
        #expect(abs(PoseConfidence.log10BinomialTail(trials: 10, successes: 8, probability: 0.5) - log10(56.0 / 1024)) < 1e-12)
        // P[Bin(5, 0.1) >= 1] = 1 - 0.9^5.
        #expect(abs(PoseConfidence.log10BinomialTail(trials: 5, successes: 1, probability: 0.1) - log10(1 - pow(0.9, 5))) < 1e-12)
        #expect(PoseConfidence.log10BinomialTail(trials: 5, successes: 0, probability: 0.1) == 0)
        #expect(PoseConfidence.log10BinomialTail(trials: 5, successes: 6, probability: 0.1) == -.infinity)
    }
}
