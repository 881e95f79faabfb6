import Foundation

/// A smooth walking path through a venue: the route with its corners rounded,
/// parametrised by distance walked, with a head that sways left and right.
struct WalkingPath: Sendable {
    /// Dense polyline of feet positions after smoothing.
    private(set) var points: [SIMD3<Double>]
    /// Cumulative distance at each point.
    private(set) var distances: [Double]
    let eyeHeight = 1.6
    /// Amplitude (degrees) and period (metres) of the side-to-side look.
    var swayDegrees = 25.0
    var swayPeriod = 7.0

    init(route: [SIMD3<Double>]) {
        var p = route
        // Chaikin corner cutting: each pass replaces a corner by two points at 1/4 and 3/4.
        for _ in 0..<4 where p.count > 2 {
            var q = [p[0]]
            for (a, b) in zip(p, p.dropFirst()) {
                q.append(a * 0.75 + b * 0.25)
                q.append(a * 0.25 + b * 0.75)
            }
            q.append(p[p.count - 1])
            p = q
        }
        points = p
        var d = [0.0]
        for (a, b) in zip(p, p.dropFirst()) { d.append(d[d.count - 1] + length(b - a)) }
        distances = d
    }

    var totalLength: Double { distances.last ?? 0 }

    /// Feet position at distance `s` along the path (clamped to its ends).
    func feet(at s: Double) -> SIMD3<Double> {
        let s = min(max(s, 0), totalLength)
        var lo = 0, hi = distances.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if distances[mid] <= s { lo = mid } else { hi = mid }
        }
        let span = distances[hi] - distances[lo]
        let f = span > 0 ? (s - distances[lo]) / span : 0
        return points[lo] * (1 - f) + points[hi] * f
    }

    /// The walking direction's heading (degrees) at `s`, averaged over a metre either side.
    func travelHeading(at s: Double) -> Double {
        let d = feet(at: s + 1) - feet(at: s - 1)
        guard d.x * d.x + d.z * d.z > 1e-12 else { return 0 }
        return atan2(d.x, -d.z) * 180 / .pi
    }

    /// The camera pose of a walker at `s`: eye height above the feet, looking
    /// along the path with a slow sway of the head and a slight downward pitch.
    func pose(at s: Double, yawOffset: Double = 0, pitchOffset: Double = 0, lateral: Double = 0, rollDegrees: Double = 0) -> CapturePose {
        let heading = travelHeading(at: s) + swayDegrees * sin(2 * .pi * s / swayPeriod) + yawOffset
        let pitch = -6 + 6 * sin(2 * .pi * s / (swayPeriod * 0.77)) + pitchOffset
        var position = feet(at: s) + SIMD3(0, eyeHeight, 0)
        let h = travelHeading(at: s) * .pi / 180
        position += SIMD3(cos(h), 0, sin(h)) * lateral
        return CapturePose(position: position, headingDegrees: heading, pitchDegrees: pitch, rollDegrees: rollDegrees)
    }
}
