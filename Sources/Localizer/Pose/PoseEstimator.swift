import Foundation

/// Settings of the robust pose estimator.
public struct PoseEstimatorOptions: Sendable, Hashable {
    /// The inlier threshold on the reprojection error, in pixels.
    public var threshold: Double = 4
    /// The probability of having drawn one all-inlier sample when RANSAC stops.
    public var confidence: Double = 0.9999
    /// The cap on RANSAC iterations (minimal samples drawn).
    public var maxIterations: Int = 10_000
    /// RANSAC draws at least this many samples even when it could stop earlier.
    public var minIterations: Int = 30
    /// Local optimisation of every new best model (LO-RANSAC).
    public var localOptimization: Bool = true
    /// Samples of the inner, non-minimal RANSAC inside local optimisation
    /// (0 keeps only its iterated least squares).
    public var innerSamples: Int = 10
    /// Optional gravity measured by the device; hypotheses that disagree are rejected.
    public var gravity: GravityPrior?
    /// With a gravity prior, sample pairs for the upright two-point solver
    /// (``UprightP2P``) instead of triples for P3P.
    public var uprightSolver: Bool = true
    /// When set, only poses with at least this share of inliers are of
    /// interest: RANSAC stops once such a pose would have been found with
    /// `confidence`, and tests hypotheses against this ratio from the start.
    /// The rival-pose check uses it; the main search leaves it nil.
    public var minInlierRatio: Double?
    /// The seed of the sampler; the same input and seed give the same pose.
    public var seed: UInt64 = 0x5EED_CAFE

    public init() {}
}

/// What the robust estimator found.
public struct PoseEstimate: Sendable {
    /// World-to-camera pose in OpenCV camera axes.
    public var pose: RigidTransform
    /// One flag per correspondence: true for inliers of the final pose.
    public var inliers: [Bool]
    public var inlierCount: Int
    /// Mean reprojection error over the inliers, in pixels.
    public var meanReprojectionError: Double
    /// Minimal samples drawn.
    public var iterations: Int
    /// Pose hypotheses scored (a sample gives up to four).
    public var hypotheses: Int
}

/// LO-RANSAC around the P3P solver, then robust non-linear refinement.
///
/// - Sampling: three distinct correspondences, uniformly, from a seeded
///   generator, for ``P3P``; with a gravity prior, two for ``UprightP2P``.
/// - Scoring: MSAC, the truncated quadratic `Σ min(e², τ²)` of pixel errors,
///   with a point behind the camera costing τ², over the matches in a fixed
///   shuffled order; scoring a hypothesis stops as soon as its cost exceeds the
///   best so far or Wald's sequential test (``SequentialTest``) declares it bad.
/// - Gravity: with a prior, hypotheses whose implied gravity disagrees by more
///   than its tolerance are dropped before scoring.
/// - Local optimisation: every new best model is refined by Levenberg-Marquardt
///   on its inliers (at most 128 of them, evenly strided; Cauchy loss, scale
///   τ/2, six iterations), re-scored on all matches, and the inlier set
///   recomputed, repeated while the score improves (at most three rounds).
///   Before that, an inner RANSAC draws `innerSamples` non-minimal samples of
///   12 of the model's inliers, fits each by least squares and keeps the best
///   by score (LO-RANSAC: Chum, Matas, Kittler 2003; Lebeda, Matas, Chum 2012).
/// - Stopping: after `k = log(1 - confidence) / log(1 - wᵐ)` samples, where `w`
///   is the inlier ratio of the best model and `m` the sample size (3, or 2
///   with gravity), bounded by the minimum and maximum.
/// - Final refinement: Levenberg-Marquardt with a Huber loss (δ = τ/2) over the
///   inliers, then inliers are recomputed and refined once more if they changed.
public struct PoseEstimator: Sendable {
    public var options: PoseEstimatorOptions

    public init(options: PoseEstimatorOptions = PoseEstimatorOptions()) {
        self.options = options
    }

    /// The best pose for `problem`, or nil when no hypothesis had at least three
    /// inliers (fewer than three correspondences, or nothing consistent).
    public func estimate(_ input: PoseProblem) -> PoseEstimate? {
        let n = input.count
        guard n >= 3 else { return nil }
        let tau2 = options.threshold * options.threshold
        // Work in a fixed pseudo-random order so that early termination of
        // scoring sees an unbiased sample of the matches whatever their input order.
        var shuffler = SeededGenerator(seed: options.seed ^ 0x0DDB_A11)
        var order = Array(0..<n)
        order.shuffle(using: &shuffler)
        let problem = PoseProblem(observations: order.map { input.observations[$0] }, points: order.map { input.points[$0] }, fx: input.fx, fy: input.fy)
        var bearings: [Vector3] = []
        bearings.reserveCapacity(n)
        for o in problem.observations { bearings.append(Vector3(o.x, o.y, 1).normalized) }

        var generator = SeededGenerator(seed: options.seed)
        var solutions: [RigidTransform] = []
        solutions.reserveCapacity(4)
        var best: RigidTransform?
        var bestCost = Double.infinity
        var bestInliers = 0
        var iterations = 0
        var hypotheses = 0
        var needed = options.maxIterations
        // With gravity and the upright solver, samples are pairs.
        let uprightAlignment = options.gravity.flatMap { options.uprightSolver ? UprightP2P.alignment(gravity: $0.directionInOpenCVCamera) : nil }
        let sampleSize = uprightAlignment == nil ? 3 : 2
        let logFailure = log(1 - min(options.confidence, 1 - 1e-12))
        // Poses below the minimum inlier ratio do not matter: stop as soon as one
        // above it would have been found.
        let cap = options.minInlierRatio.map { requiredIterations(inlierRatio: $0, sampleSize: sampleSize, logFailure: logFailure) } ?? options.maxIterations
        needed = cap

        while iterations < max(options.minIterations, min(needed, options.maxIterations)) && iterations < options.maxIterations {
            iterations += 1
            if let q = uprightAlignment {
                let i0 = generator.index(below: n)
                var i1 = generator.index(below: n - 1)
                if i1 >= i0 { i1 += 1 }
                UprightP2P.solve(bearings: (bearings[i0], bearings[i1]), points: (problem.points[i0], problem.points[i1]), alignment: q, into: &solutions)
            } else {
                let i0 = generator.index(below: n)
                var i1 = generator.index(below: n - 1)
                if i1 >= i0 { i1 += 1 }
                var i2 = generator.index(below: n - 2)
                let lo = min(i0, i1), hi = max(i0, i1)
                if i2 >= lo { i2 += 1 }
                if i2 >= hi { i2 += 1 }
                P3P.solve(
                    bearings: (bearings[i0], bearings[i1], bearings[i2]),
                    points: (problem.points[i0], problem.points[i1], problem.points[i2]),
                    into: &solutions
                )
            }
            for candidate in solutions {
                if let gravity = options.gravity, !gravity.accepts(candidate) { continue }
                hypotheses += 1
                let test = best == nil ? options.minInlierRatio.flatMap { SequentialTest(inlierRatio: $0) }
                    : SequentialTest(inlierRatio: max(Double(bestInliers) / Double(n), options.minInlierRatio ?? 0))
                let (cost, inliers) = score(candidate, problem: problem, tau2: tau2, bound: bestCost, test: test)
                guard cost < bestCost else { continue }
                var model = candidate
                var modelCost = cost
                var modelInliers = inliers
                if options.localOptimization && inliers >= 4 {
                    (model, modelCost, modelInliers) = locallyOptimize(model, cost: cost, inliers: inliers, problem: problem, tau2: tau2, generator: &generator)
                }
                best = model
                bestCost = modelCost
                bestInliers = modelInliers
                needed = min(cap, requiredIterations(inlierRatio: Double(modelInliers) / Double(n), sampleSize: sampleSize, logFailure: logFailure))
            }
        }
        guard var pose = best, bestInliers >= 3 else { return nil }

        // Final robust refinement over the inliers.
        var inlierIndices = self.inlierIndices(pose, problem: problem, tau2: tau2)
        for _ in 0..<2 {
            guard inlierIndices.count >= 3 else { break }
            let refined = PoseRefiner.refine(pose, problem: problem, indices: inlierIndices, loss: .huber(options.threshold / 2), maxIterations: 30)
            if let gravity = options.gravity, !gravity.accepts(refined) { break }
            let refinedInliers = self.inlierIndices(refined, problem: problem, tau2: tau2)
            guard refinedInliers.count >= inlierIndices.count else { break }
            pose = refined
            let changed = refinedInliers != inlierIndices
            inlierIndices = refinedInliers
            if !changed { break }
        }
        var mask = [Bool](repeating: false, count: n)
        var sum = 0.0
        for i in inlierIndices {
            mask[order[i]] = true
            sum += problem.squaredError(pose, i)!.squareRoot()
        }
        guard inlierIndices.count >= 3 else { return nil }
        return PoseEstimate(
            pose: pose, inliers: mask, inlierCount: inlierIndices.count,
            meanReprojectionError: sum / Double(inlierIndices.count),
            iterations: iterations, hypotheses: hypotheses
        )
    }

    /// The number of samples after which an all-inlier sample has been drawn
    /// with the configured confidence.
    func requiredIterations(inlierRatio w: Double, sampleSize: Int, logFailure: Double) -> Int {
        let allInliers = pow(w, Double(sampleSize))
        guard allInliers > 0 else { return options.maxIterations }
        guard allInliers < 1 else { return 0 }
        let k = logFailure / log(1 - allInliers)
        return k.isFinite ? Int(min(k.rounded(.up), Double(options.maxIterations))) : options.maxIterations
    }

    /// Wald's sequential probability ratio test for "this model is bad"
    /// (Matas and Chum, "Randomized RANSAC with sequential probability ratio
    /// test", ICCV 2005): after each match the likelihood ratio of bad versus
    /// good is multiplied by `δ/ε` for an inlier and `(1-δ)/(1-ε)` for an
    /// outlier; scoring stops once it exceeds `A`.
    struct SequentialTest {
        /// The share of matches a bad model finds consistent by chance.
        static let delta = 0.05
        /// The decision threshold: a good model is wrongly rejected with probability at most 1/A.
        static let threshold = 1000.0
        let inlierFactor: Double
        let outlierFactor: Double

        /// A test against the inlier ratio `epsilon` of the best model so far; nil when it would not discriminate.
        init?(inlierRatio epsilon: Double) {
            guard epsilon > 2 * SequentialTest.delta, epsilon < 1 else { return nil }
            inlierFactor = SequentialTest.delta / epsilon
            outlierFactor = (1 - SequentialTest.delta) / (1 - epsilon)
        }
    }

    /// MSAC cost and inlier count; gives up (returning a cost ≥ `bound`) once
    /// the cost passes `bound` or the sequential test rejects the model.
    func score(_ pose: RigidTransform, problem: PoseProblem, tau2: Double, bound: Double, test: SequentialTest? = nil) -> (Double, Int) {
        let r = pose.rotation
        let t = pose.translation
        let fx = problem.fx, fy = problem.fy
        var cost = 0.0
        var inliers = 0
        var ratio = 1.0
        let inlierFactor = test?.inlierFactor ?? 1
        let outlierFactor = test?.outlierFactor ?? 1
        problem.points.withUnsafeBufferPointer { points in
            problem.observations.withUnsafeBufferPointer { observations in
                for i in 0..<points.count {
                    let x = points[i]
                    let pz = r.r2.dot(x) + t.z
                    var e2 = tau2
                    if pz > 0 {
                        let iz = 1 / pz
                        let dx = fx * ((r.r0.dot(x) + t.x) * iz - observations[i].x)
                        let dy = fy * ((r.r1.dot(x) + t.y) * iz - observations[i].y)
                        let d2 = dx * dx + dy * dy
                        if d2 < tau2 {
                            e2 = d2
                            inliers += 1
                        }
                    }
                    cost += e2
                    ratio *= e2 < tau2 ? inlierFactor : outlierFactor
                    if cost >= bound || ratio > SequentialTest.threshold {
                        cost = .infinity
                        return
                    }
                }
            }
        }
        return (cost, inliers)
    }

    func inlierIndices(_ pose: RigidTransform, problem: PoseProblem, tau2: Double) -> [Int] {
        var out: [Int] = []
        for i in 0..<problem.count {
            if let e2 = problem.squaredError(pose, i), e2 < tau2 { out.append(i) }
        }
        return out
    }

    /// Local optimisation refines on at most this many inliers (evenly strided).
    static let localOptimizationSampleSize = 128
    /// The size of the inner RANSAC's non-minimal samples.
    static let innerSampleSize = 12

    /// Refines a new best model on its inliers while that improves its MSAC score.
    func locallyOptimize(_ model: RigidTransform, cost: Double, inliers: Int, problem: PoseProblem, tau2: Double,
                         generator: inout SeededGenerator) -> (RigidTransform, Double, Int) {
        var bestModel = model
        var bestCost = cost
        var bestInliers = inliers
        // Inner RANSAC (Lebeda, Matas, Chum 2012): non-minimal samples drawn from
        // the model's inliers, each fitted by least squares and scored on all
        // matches. A minimal sample's pose is fixed by three noisy pixels; a
        // dozen inliers average that noise out before the iterations below.
        let pool = inlierIndices(model, problem: problem, tau2: tau2)
        let sampleSize = PoseEstimator.innerSampleSize
        if options.innerSamples > 0 && pool.count >= 2 * sampleSize {
            var sample = [Int](repeating: 0, count: sampleSize)
            var start = bestModel
            var picks = Array(pool.indices)
            for _ in 0..<options.innerSamples {
                // A partial Fisher-Yates shuffle of the pool's indices gives distinct picks.
                for k in 0..<sampleSize {
                    let j = k + generator.index(below: picks.count - k)
                    picks.swapAt(k, j)
                    sample[k] = pool[picks[k]]
                }
                let fitted = PoseRefiner.refine(start, problem: problem, indices: sample, loss: .squared, maxIterations: 4)
                if let gravity = options.gravity, !gravity.accepts(fitted) { continue }
                let (c, k) = score(fitted, problem: problem, tau2: tau2, bound: bestCost)
                guard c < bestCost * (1 - 1e-9) else { continue }
                bestModel = fitted
                bestCost = c
                bestInliers = k
                start = fitted
            }
        }
        // Iterated least squares on the inliers of the best model so far.
        for _ in 0..<3 {
            var indices = inlierIndices(bestModel, problem: problem, tau2: tau2)
            guard indices.count >= 4 else { break }
            if indices.count > PoseEstimator.localOptimizationSampleSize {
                // An evenly strided subset: enough to fix six parameters, a fraction of the cost.
                let stride = Double(indices.count) / Double(PoseEstimator.localOptimizationSampleSize)
                indices = (0..<PoseEstimator.localOptimizationSampleSize).map { indices[Int(Double($0) * stride)] }
            }
            let refined = PoseRefiner.refine(bestModel, problem: problem, indices: indices, loss: .cauchy(options.threshold / 2), maxIterations: 6)
            if let gravity = options.gravity, !gravity.accepts(refined) { break }
            let (c, k) = score(refined, problem: problem, tau2: tau2, bound: .infinity)
            guard c < bestCost * (1 - 1e-9) else { break }
            bestModel = refined
            bestCost = c
            bestInliers = k
        }
        return (bestModel, bestCost, bestInliers)
    }
}
