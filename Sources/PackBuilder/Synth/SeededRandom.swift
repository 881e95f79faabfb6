import Foundation

/// A small, fast, seedable pseudo-random generator (xoshiro256** seeded by SplitMix64).
///
/// The synthetic renderer uses it instead of the system generator so that a
/// seed always gives the same venue, path and pixels on every platform.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    /// A generator for one sub-stream, for example one image row: the same
    /// (seed, stream, index) always gives the same numbers.
    public init(seed: UInt64, stream: UInt64, index: UInt64) {
        self.init(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93) ^ (index &* 0xA076_1D64_78BD_642F) ^ 0x5851_F42D_4C95_7F2D)
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in [a, b).
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// Uniform integer in 0..<n (n > 0).
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// True with probability p.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A standard normal sample (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
