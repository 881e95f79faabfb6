import Foundation

/// Where the caller believes the camera is: matching is restricted to map
/// points near it, which is faster and rejects look-alikes elsewhere.
public struct LocalizationHint: Sendable, Hashable {
    /// The default search radius in metres.
    public static let defaultRadius = 25.0
    /// Radii are clamped into this range (metres).
    public static let radiusRange = 1.0...100.0

    /// The believed camera position in pack coordinates; nil searches everywhere (subject to `floors`).
    public var position: Vector3?
    /// The search radius in metres around `position`, clamped into ``radiusRange``.
    public var radius: Double
    /// The floors to search, inclusive; nil for every floor.
    public var floors: ClosedRange<Int>?

    /// - Throws: ``LocalizerError`` (`.invalidOption`) when the position or radius is not finite.
    public init(position: Vector3? = nil, radius: Double = LocalizationHint.defaultRadius, floors: ClosedRange<Int>? = nil) throws(LocalizerError) {
        if let p = position, !p.isFinite {
            throw LocalizerError(.invalidOption, "--hint \(p.x),\(p.y),\(p.z): need three finite numbers")
        }
        guard radius.isFinite else {
            throw LocalizerError(.invalidOption, "--radius \(radius): need a finite number of metres")
        }
        self.position = position
        self.radius = min(LocalizationHint.radiusRange.upperBound, max(LocalizationHint.radiusRange.lowerBound, radius))
        self.floors = floors
    }

    /// No restriction.
    public static let none = try! LocalizationHint()

    /// True when the hint restricts nothing.
    public var isEmpty: Bool { position == nil && floors == nil }

    /// Parses `x,y,z` (the `--hint` option).
    public static func parsePosition(_ text: String) throws(LocalizerError) -> Vector3 {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2], x.isFinite, y.isFinite, z.isFinite else {
            throw LocalizerError(.invalidOption, "--hint '\(text)': expected three numbers x,y,z in pack metres")
        }
        return Vector3(x, y, z)
    }

    /// Parses `lo,hi` (the `--floors` option): whole numbers, ascending, inclusive.
    public static func parseFloors(_ text: String) throws(LocalizerError) -> ClosedRange<Int> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lo = parts[0], let hi = parts[1] else {
            throw LocalizerError(.invalidOption, "--floors '\(text)': expected two whole numbers lo,hi")
        }
        guard lo <= hi else {
            throw LocalizerError(.invalidOption, "--floors '\(text)': lo must not exceed hi")
        }
        return lo...hi
    }

    /// Parses `x,y,z` (the `--gravity` option) into a gravity prior.
    public static func parseGravity(_ text: String) throws(LocalizerError) -> GravityPrior {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2] else {
            throw LocalizerError(.invalidOption, "--gravity '\(text)': expected three numbers x,y,z in camera axes (x right, y up, -z forward)")
        }
        return try GravityPrior(cameraGravity: Vector3(x, y, z))
    }
}
