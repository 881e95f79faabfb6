/// The part of a map a hint allows: a sphere around a position and/or a band of floors.
///
/// The radius is clamped to 1...100 m (default 25 m). A point is inside when its
/// Euclidean distance to the centre is at most the radius and its floor is in
/// the band (both ends inclusive). A region with neither centre nor floors
/// allows the whole map.
public struct MapRegion: Sendable, Equatable {
    public static let defaultRadius: Float = 25
    public static let radiusRange: ClosedRange<Float> = 1...100

    public var center: SIMD3<Float>?
    /// Metres, already clamped to ``radiusRange``.
    public private(set) var radius: Float
    public var floors: ClosedRange<Int>?

    public init(center: SIMD3<Float>? = nil, radius: Float = MapRegion.defaultRadius, floors: ClosedRange<Int>? = nil) {
        self.center = center
        self.radius = radius.isNaN ? Self.defaultRadius : min(max(radius, Self.radiusRange.lowerBound), Self.radiusRange.upperBound)
        self.floors = floors
    }

    /// True when the region restricts nothing.
    public var isUnrestricted: Bool { center == nil && floors == nil }

    @inlinable
    public func contains(_ p: SIMD3<Float>, floor: Int) -> Bool {
        if let floors, !floors.contains(floor) { return false }
        if let center {
            let d = p - center
            return (d * d).sum() <= radius * radius
        }
        return true
    }

    /// Parses the command-line forms: `--hint x,y,z`, `--radius R`, `--floors lo,hi`.
    ///
    /// Returns nil when none is given. `--radius` without `--hint` is an error;
    /// radii outside 1...100 are clamped.
    /// - Throws: ``MapRegionError`` naming the option and what is wrong with its value.
    public static func parse(hint: String?, radius: String?, floors: String?) throws(MapRegionError) -> MapRegion? {
        guard hint != nil || radius != nil || floors != nil else { return nil }
        var center: SIMD3<Float>?
        if let hint {
            let parts = hint.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: " ")) }
            guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2], x.isFinite, y.isFinite, z.isFinite else {
                throw MapRegionError(option: "--hint", "'\(hint)' is not three finite numbers x,y,z")
            }
            center = SIMD3(x, y, z)
        }
        var r = defaultRadius
        if let radius {
            guard center != nil else { throw MapRegionError(option: "--radius", "needs --hint x,y,z to say around what") }
            guard let value = Float(radius.trimmingCharacters(in: " ")), value.isFinite, value > 0 else {
                throw MapRegionError(option: "--radius", "'\(radius)' is not a positive number of metres")
            }
            r = value
        }
        var band: ClosedRange<Int>?
        if let floors {
            let parts = floors.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: " ")) }
            guard parts.count == 2, let lo = parts[0], let hi = parts[1] else {
                throw MapRegionError(option: "--floors", "'\(floors)' is not two integers lo,hi")
            }
            guard lo <= hi else { throw MapRegionError(option: "--floors", "'\(floors)' must be ascending (lo <= hi)") }
            band = lo...hi
        }
        return MapRegion(center: center, radius: r, floors: band)
    }
}

/// A hint option with a value that cannot be used.
public struct MapRegionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var option: String
    public var reason: String

    public init(option: String, _ reason: String) {
        self.option = option
        self.reason = reason
    }

    public var description: String { "\(option) \(reason)" }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return s
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> Substring { Substring(self).trimmingCharacters(in: set) }
}
