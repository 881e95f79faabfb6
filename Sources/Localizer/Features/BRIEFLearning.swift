import Foundation
public import VPSImageIO

/// Selects the 256 BRIEF tests from the candidates, as ORB's rBRIEF does: tests
/// whose mean over many steered keypoints is closest to 0.5 first, each kept
/// only if its correlation with every test already kept stays below a bound,
/// the bound relaxed until 256 are found.
///
/// A development tool (`vpspack learn-brief`): its output is compiled into
/// ``BRIEF/selection``, so extraction never runs it.
public enum BRIEFLearning {
    /// The selected candidate indices for keypoints of `images`.
    public static func select(images: [GrayImage], featuresPerImage: Int = 2000) -> [Int] {
        let n = BRIEF.candidateCount
        let c = BRIEF.candidates
        let pattern: [Int32] = (0..<n).flatMap { i in [Int32(c.x1[i]), Int32(c.y1[i]), Int32(c.x2[i]), Int32(c.y2[i])] }
        // One bit column per candidate test, one bit per training keypoint.
        var columns = [[UInt64]](repeating: [], count: n)
        var samples = 0
        let configuration = FeatureExtractor.Configuration(maxFeatures: featuresPerImage)
        for image in images {
            let features = FeatureExtractor(configuration).extract(image)
            let levels = FeatureExtractor.pyramid(image, configuration: configuration).map { Smooth.gaussian7($0) }
            for k in features.keypoints where k.octave < levels.count {
                let level = levels[k.octave]
                let sx = Float(image.width) / Float(level.width), sy = Float(image.height) / Float(level.height)
                let x = Int(((k.x + 0.5) / sx - 0.5).rounded()), y = Int(((k.y + 0.5) / sy - 0.5).rounded())
                let angle = k.angle * Float.pi / 180
                let cs = Int32((cosf(angle) * 4096).rounded()), sn = Int32((sinf(angle) * 4096).rounded())
                if samples % 64 == 0 { for t in 0..<n { columns[t].append(0) } }
                let word = samples / 64, bit = UInt64(samples % 64)
                level.pixels.withUnsafeBufferPointer { px in
                    let center = px.baseAddress! + y * level.width + x
                    let w = Int32(level.width)
                    for t in 0..<n {
                        let x1 = pattern[4 * t], y1 = pattern[4 * t + 1], x2 = pattern[4 * t + 2], y2 = pattern[4 * t + 3]
                        let a = (x1 &* sn &+ y1 &* cs &+ 2048) >> 12 &* w &+ ((x1 &* cs &- y1 &* sn &+ 2048) >> 12)
                        let b = (x2 &* sn &+ y2 &* cs &+ 2048) >> 12 &* w &+ ((x2 &* cs &- y2 &* sn &+ 2048) >> 12)
                        if center[Int(a)] < center[Int(b)] { columns[t][word] |= 1 << bit }
                    }
                }
                samples += 1
            }
        }
        guard samples > 0 else { return Array(0..<256) }
        func ones(_ v: [UInt64]) -> Int { v.reduce(0) { $0 + $1.nonzeroBitCount } }
        let means = columns.map { Double(ones($0)) / Double(samples) }
        let bias: [Double] = means.map { abs($0 - 0.5) }
        let order = (0..<n).sorted { (a: Int, b: Int) -> Bool in bias[a] != bias[b] ? bias[a] < bias[b] : a < b }
        func correlation(_ a: Int, _ b: Int) -> Double {
            var both = 0
            for i in columns[a].indices { both += (columns[a][i] & columns[b][i]).nonzeroBitCount }
            let pab = Double(both) / Double(samples), pa = means[a], pb = means[b]
            let den = (pa * (1 - pa) * pb * (1 - pb)).squareRoot()
            return den > 0 ? (pab - pa * pb) / den : 1
        }
        var bound = 0.2
        while true {
            var chosen: [Int] = []
            for t in order where chosen.count < 256 {
                if chosen.allSatisfy({ abs(correlation($0, t)) < bound }) { chosen.append(t) }
            }
            if chosen.count == 256 { return chosen }
            bound += 0.05
        }
    }
}
