import Foundation

/// How much to trust a pose: a number in [0, 1] and the parts it is made of.
///
/// The confidence is the product of four factors, each in [0, 1]:
///
/// - **evidence** from the inlier count *and* the inlier ratio, as an
///   a-contrario test: the number of false alarms
///   `NFA = H · P[Bin(M - 3, p) ≥ n - 3]` is the expected number of
///   hypotheses, among the `H` scored, that would gather `n` inliers out of
///   `M` matches if every match were an outlier. An outlier falls within the
///   threshold τ of its prediction with probability `p = min(1, κ π τ² / A)`
///   for an image of area `A`; κ = 10 allows outliers to crowd where
///   features are (the uniform model would have κ = 1). The evidence factor
///   rises linearly from 0 at `-log10 NFA = 3` to 1 at `-log10 NFA = 13`.
/// - **spread**: the inliers must cover the image, not one patch of it (a
///   poster or a screen seen elsewhere): the number of cells of an 8×8 grid
///   holding an inlier, over 10, capped at 1.
/// - **ratio**: `0.5 + 1.25 · n / M`, capped at 1: a low inlier ratio halves
///   the confidence at most, because without a hint a large map legitimately
///   yields many wrong matches.
/// - **fit**: `1.3 - ē / τ` clamped to [0.5, 1], with ē the mean inlier
///   reprojection error; chance inliers spread uniformly within τ average
///   ē ≈ 2τ/3 and get about 0.63.
///
/// Independently of the number, a pose with fewer than `minInliers` inliers is
/// never reported as localized.
public struct PoseConfidence: Sendable, Hashable {
    public var confidence: Double
    public var evidence: Double
    public var spread: Double
    public var ratio: Double
    public var fit: Double
    /// `-log10 NFA`: how many orders of magnitude below one false alarm.
    public var significance: Double

    /// The outlier-crowding factor κ of the a-contrario model.
    public static let outlierCrowding = 10.0
    /// The grid over the image for the spread factor.
    public static let gridSize = 8

    /// Evaluates a pose estimate.
    ///
    /// - Parameters:
    ///   - inlierPixels: the inliers' pixel positions in the query image.
    ///   - matches: the number of 2D-3D matches RANSAC ran on (M).
    ///   - hypotheses: the number of pose hypotheses scored (H).
    ///   - threshold: the inlier threshold τ in pixels.
    ///   - meanError: the inliers' mean reprojection error in pixels.
    ///   - width: the query image's width in pixels.
    ///   - height: the query image's height in pixels.
    public init(inlierPixels: [SIMD2<Double>], matches: Int, hypotheses: Int, threshold: Double, meanError: Double, width: Int, height: Int) {
        let n = inlierPixels.count
        let area = Double(max(1, width)) * Double(max(1, height))
        let p = min(1, PoseConfidence.outlierCrowding * Double.pi * threshold * threshold / area)
        let logTail = n >= 3 && matches >= 3 ? PoseConfidence.log10BinomialTail(trials: matches - 3, successes: n - 3, probability: p) : 0
        significance = -(log10(Double(max(1, hypotheses))) + logTail)
        evidence = min(1, max(0, (significance - 3) / 10))

        let g = PoseConfidence.gridSize
        var occupied = Set<Int>()
        for q in inlierPixels {
            let cx = min(g - 1, max(0, Int(q.x / Double(width) * Double(g))))
            let cy = min(g - 1, max(0, Int(q.y / Double(height) * Double(g))))
            occupied.insert(cy * g + cx)
        }
        spread = min(1, Double(occupied.count) / 10)
        ratio = matches > 0 ? min(1, 0.5 + 1.25 * Double(n) / Double(matches)) : 0
        fit = threshold > 0 ? min(1, max(0.5, 1.3 - meanError / threshold)) : 0
        confidence = evidence * spread * ratio * fit
    }

    /// `log10 P[X ≥ k]` for `X ~ Binomial(m, p)`, summed in log space.
    public static func log10BinomialTail(trials m: Int, successes k: Int, probability p: Double) -> Double {
        guard k > 0 else { return 0 }
        guard k <= m else { return -Double.infinity }
        guard p > 0 else { return -Double.infinity }
        guard p < 1 else { return 0 }
        let logP = log(p)
        let logQ = log1p(-p)
        // log C(m, k), then each next term by the ratio C(m, j+1) / C(m, j) = (m - j) / (j + 1).
        var logChoose = 0.0
        for i in 1...k { logChoose += log(Double(m - k + i) / Double(i)) }
        var t = logChoose + Double(k) * logP + Double(m - k) * logQ
        // Terms rise up to the mode and fall after it; sum from k until they are negligible.
        var maxTerm = t
        var terms: [Double] = [t]
        var j = k
        while j < m {
            t += log(Double(m - j) / Double(j + 1)) + logP - logQ
            j += 1
            terms.append(t)
            maxTerm = max(maxTerm, t)
            if t < maxTerm - 40 { break }
        }
        let sum = terms.reduce(0) { $0 + exp($1 - maxTerm) }
        return min(0, (maxTerm + log(sum)) / log(10))
    }
}
