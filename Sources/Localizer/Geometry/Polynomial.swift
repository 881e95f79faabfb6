import Foundation

/// Real roots of low-degree polynomials, written into fixed tuples so hot loops allocate nothing.
enum Polynomial {
    /// Real roots of `a x² + b x + c`; returns how many were written (0, 1 or 2).
    ///
    /// Uses the cancellation-free form `q = -(b + sign(b) √disc) / 2`,
    /// roots `q / a` and `c / q`. Falls back to the linear case when `a` is
    /// negligible relative to `b` and `c`.
    static func realQuadraticRoots(_ a: Double, _ b: Double, _ c: Double, into roots: inout (Double, Double)) -> Int {
        let scale = max(abs(a), abs(b), abs(c))
        guard scale > 0, scale.isFinite else { return 0 }
        if abs(a) <= 1e-14 * scale {
            guard b != 0 else { return 0 }
            roots.0 = -c / b
            return 1
        }
        let disc = b * b - 4 * a * c
        if disc < 0 {
            // A tiny negative discriminant is a rounded double root.
            guard disc > -1e-14 * b * b else { return 0 }
            roots.0 = -b / (2 * a)
            return 1
        }
        let q = -0.5 * (b + (b >= 0 ? disc.squareRoot() : -disc.squareRoot()))
        if q == 0 {
            roots.0 = 0
            return 1
        }
        roots.0 = q / a
        roots.1 = c / q
        return 2
    }

    /// Real roots of `a x³ + b x² + c x + d`; returns how many were written (0 to 3).
    ///
    /// Closed form (trigonometric when three roots are real, Cardano when one),
    /// each root then polished with two Newton steps on the original polynomial.
    static func realCubicRoots(_ a: Double, _ b: Double, _ c: Double, _ d: Double, into roots: inout (Double, Double, Double)) -> Int {
        let scale = max(abs(a), abs(b), abs(c), abs(d))
        guard scale > 0, scale.isFinite else { return 0 }
        if abs(a) <= 1e-14 * scale {
            var two = (0.0, 0.0)
            let n = realQuadraticRoots(b, c, d, into: &two)
            roots.0 = two.0
            roots.1 = two.1
            return n
        }
        let p = b / a, q = c / a, r = d / a
        let qq = (p * p - 3 * q) / 9
        let rr = (2 * p * p * p - 9 * p * q + 27 * r) / 54
        let qq3 = qq * qq * qq
        var count: Int
        if rr * rr < qq3 {
            let theta = acos(max(-1, min(1, rr / qq3.squareRoot())))
            let m = -2 * qq.squareRoot()
            roots.0 = m * cos(theta / 3) - p / 3
            roots.1 = m * cos((theta + 2 * Double.pi) / 3) - p / 3
            roots.2 = m * cos((theta - 2 * Double.pi) / 3) - p / 3
            count = 3
        } else {
            let big = -(rr >= 0 ? 1.0 : -1.0) * cbrt(abs(rr) + (rr * rr - qq3).squareRoot())
            let small = big != 0 ? qq / big : 0
            roots.0 = big + small - p / 3
            count = 1
        }
        func polish(_ x: Double) -> Double {
            var x = x
            for _ in 0..<2 {
                let f = ((a * x + b) * x + c) * x + d
                let df = (3 * a * x + 2 * b) * x + c
                guard df != 0 else { break }
                let step = f / df
                guard step.isFinite else { break }
                x -= step
            }
            return x
        }
        roots.0 = polish(roots.0)
        if count == 3 {
            roots.1 = polish(roots.1)
            roots.2 = polish(roots.2)
        }
        return count
    }
}
