import Foundation

/// Where a pack's frame sits on the Earth: the WGS84 position of its origin
/// and the true bearing of its -Z axis.
///
/// The conversion is a local tangent plane approximation: pack X, -Z and Y
/// are taken as east, north and up rotated by `heading` about the vertical,
/// and metres become degrees through the WGS84 meridian and prime-vertical
/// radii of curvature at the origin's latitude. Inside a venue (a few hundred
/// metres) the horizontal error is below a millimetre; at 1 km from the
/// origin the neglected Earth curvature is about 8 cm of altitude.
public struct Georeference: Sendable, Hashable {
    /// Latitude of the pack origin in degrees, [-90, 90].
    public var latitude: Double
    /// Longitude of the pack origin in degrees, [-180, 180].
    public var longitude: Double
    /// Ellipsoidal altitude of the pack origin in metres.
    public var altitude: Double
    /// True bearing of the pack's -Z axis, degrees clockwise from north.
    public var heading: Double

    /// - Throws: ``LocalizerError`` (`.invalidMap`) when a value is out of range.
    public init(latitude: Double, longitude: Double, altitude: Double, heading: Double) throws(LocalizerError) {
        guard latitude.isFinite, abs(latitude) < 90 else {
            throw LocalizerError(.invalidMap, "georeference latitude \(latitude) is outside (-90, 90)")
        }
        guard longitude.isFinite, abs(longitude) <= 180 else {
            throw LocalizerError(.invalidMap, "georeference longitude \(longitude) is outside [-180, 180]")
        }
        guard altitude.isFinite, abs(altitude) < 100_000 else {
            throw LocalizerError(.invalidMap, "georeference altitude \(altitude) m is not plausible")
        }
        guard heading.isFinite else {
            throw LocalizerError(.invalidMap, "georeference heading \(heading) is not a finite number")
        }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.heading = heading
    }

    /// WGS84 semi-major axis and first eccentricity squared.
    static let semiMajorAxis = 6_378_137.0
    static let eccentricitySquared = 6.694_379_990_14e-3

    /// The WGS84 position and true heading of a pack position and pack heading.
    public func geoPose(position p: Vector3, heading packHeading: Double) -> GeoPose {
        let h = heading * Double.pi / 180
        // Pack -Z points at bearing h, pack +X at bearing h + 90°.
        let north = -p.z * cos(h) - p.x * sin(h)
        let east = -p.z * sin(h) + p.x * cos(h)
        let phi = latitude * Double.pi / 180
        let s2 = sin(phi) * sin(phi)
        let w = (1 - Georeference.eccentricitySquared * s2).squareRoot()
        let meridian = Georeference.semiMajorAxis * (1 - Georeference.eccentricitySquared) / (w * w * w)
        let primeVertical = Georeference.semiMajorAxis / w
        var lon = longitude + east / (primeVertical * cos(phi)) * 180 / Double.pi
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return GeoPose(
            latitude: latitude + north / meridian * 180 / Double.pi,
            longitude: lon,
            altitude: altitude + p.y,
            heading: CameraPose.normalizedDegrees(packHeading + heading)
        )
    }
}

/// A camera's WGS84 position and true heading.
public struct GeoPose: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres, same datum as the georeference's altitude.
    public var altitude: Double
    /// Degrees in [0, 360), clockwise from true north.
    public var heading: Double
}
