public import Foundation
public import PackFormat

/// A loaded map ready for localization: the map data, its descriptor matcher
/// and its spatial grid for hints.
///
/// ```swift
/// let map = try LocalizationMap(files: filesFromThePack)
/// let allowed = map.allowedPoints(in: MapRegion(center: [1, 0, 2], radius: 10))
/// let matches = map.matcher.match(features.descriptors, options: .init(ratio: 0.8, allowed: allowed))
/// ```
public struct LocalizationMap: Sendable {
    public let data: MapData
    public let matcher: HashIndexMatcher
    public let grid: SpatialGrid

    public init(_ data: MapData) {
        self.data = data
        self.matcher = HashIndexMatcher(map: data)
        self.grid = SpatialGrid(points: data.points)
    }

    /// Reads and validates the `map/` files (keyed by their pack paths).
    ///
    /// - Throws: ``MapFormatError`` naming the file and the problem.
    public init(files: [String: Data]) throws(MapFormatError) {
        self.init(try MapData.decode(files: files))
    }

    /// The points a hint allows; nil for the whole map.
    public func allowedPoints(in region: MapRegion?) -> PointSubset? {
        guard let region else { return nil }
        return grid.points(in: region)
    }

    /// The `map/` files' bytes for a map being built: points, their descriptors
    /// (grouped by point: `owners[i]` is the point of `descriptors[i]`), keyframes;
    /// the index is built here.
    ///
    /// - Throws: ``MapFormatError`` when the parts are inconsistent.
    public static func files(points: [MapPoint], descriptors: [BinaryDescriptor], owners: [UInt32],
                             keyframes: [MapKeyframe]) throws(MapFormatError) -> [String: Data] {
        try MapData(points: points, descriptors: descriptors, descriptorPoints: owners, keyframes: keyframes).encoded()
    }
}
