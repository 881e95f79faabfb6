public import Foundation
import VPSCrypto

/// The table of contents of a pack: `manifest.json`, the first entry of every `.vpspack` archive.
///
/// It names the tour and version, the coordinate frame, an optional
/// georeference, and every other file of the archive with its exact length and
/// SHA-256. docs/pack-format.md gives the JSON byte for byte.
///
/// ```swift
/// let manifest = try Manifest.decode(bytes)
/// for file in manifest.files { print(file.path, file.length) }
/// ```
public struct Manifest: Codable, Sendable, Equatable {
    /// The name of the manifest entry inside an archive.
    public static let entryName = "manifest.json"
    /// The only coordinate frame format 1 knows: metres, Y up, right-handed (DESIGN.md "Frames").
    public static let standardFrame = "metres-y-up-right-handed"
    /// The largest manifest.json accepted, in bytes.
    public static let maximumEncodedSize = 16 << 20

    /// The pack format version (``PackFormatVersion/current`` when written by this build).
    public var format: Int
    /// The tour (venue map) the pack localizes in.
    public var tour: String
    /// The pack version; grows with every publication of the tour.
    public var version: Int
    public var created: Date
    /// The coordinate frame of every position in the pack; ``standardFrame``.
    public var frame: String
    /// Where the pack sits on Earth, when known.
    public var georeference: Georeference?
    /// Every file of the archive except manifest.json, sorted by path.
    public var files: [File]

    /// One file of the pack.
    public struct File: Codable, Sendable, Equatable, Hashable {
        /// A relative path under `map/` or `attachments/`, components separated by `/`.
        public var path: String
        public var length: Int64
        /// Lowercase hex SHA-256 of the file's bytes.
        public var sha256: String

        public init(path: String, length: Int64, sha256: String) {
            self.path = path
            self.length = length
            self.sha256 = sha256
        }
    }

    /// The pack's place on Earth: the WGS84 position of the pack origin and the
    /// heading of the pack's -Z axis, degrees clockwise from true north in [0, 360).
    public struct Georeference: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        /// Metres above the WGS84 ellipsoid.
        public var altitude: Double
        public var heading: Double

        public init(latitude: Double, longitude: Double, altitude: Double, heading: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.heading = heading
        }
    }

    public init(
        format: Int = PackFormatVersion.current, tour: String, version: Int, created: Date,
        frame: String = Manifest.standardFrame, georeference: Georeference? = nil, files: [File]
    ) {
        self.format = format
        self.tour = tour
        self.version = version
        self.created = created
        self.frame = frame
        self.georeference = georeference
        self.files = files.sorted { $0.path < $1.path }
    }

    /// The file listed at `path`, if any.
    public func file(at path: String) -> File? {
        files.first { $0.path == path }
    }

    /// Sum of the lengths of every listed file.
    public var totalLength: Int64 { files.reduce(0) { $0 + $1.length } }

    /// The canonical bytes of manifest.json: pretty-printed, sorted keys, ISO 8601 UTC dates, final newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, enc in
            var c = enc.singleValueContainer()
            try c.encode(ISO8601.format(date))
        }
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0a)
        return data
    }

    /// Parses and checks manifest.json.
    ///
    /// Checks the format version, the tour name, a positive version, the frame,
    /// the georeference ranges, and every file: a safe relative path under
    /// `map/` or `attachments/`, no duplicates, a non-negative length, a 64-hex SHA-256.
    ///
    /// - Throws: ``PackFormatError`` naming the field that is wrong.
    public static func decode(_ data: Data) throws(PackFormatError) -> Manifest {
        guard data.count <= maximumEncodedSize else {
            throw .manifest("manifest.json is \(data.count) bytes, over the \(maximumEncodedSize)-byte limit")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { dec in
            let c = try dec.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        // Read the format first so an unknown version is reported as such, not as a missing field.
        struct FormatOnly: Decodable { var format: Int }
        if let probe = try? decoder.decode(FormatOnly.self, from: data), probe.format != PackFormatVersion.current {
            throw .unsupportedFormat(probe.format)
        }
        let manifest: Manifest
        do {
            manifest = try decoder.decode(Manifest.self, from: data)
        } catch {
            throw .manifest("manifest.json is not a valid manifest (\(DecodingErrorText.describe(error)))")
        }
        try manifest.validate()
        return manifest
    }

    /// Checks the fields that JSON decoding alone cannot.
    public func validate() throws(PackFormatError) {
        guard format == PackFormatVersion.current else { throw .unsupportedFormat(format) }
        guard TourName.isValid(tour) else { throw .manifest("manifest.json names an invalid tour '\(tour)'") }
        guard version > 0 else { throw .manifest("manifest.json field 'version' must be positive, got \(version)") }
        guard frame == Self.standardFrame else {
            throw .manifest("manifest.json field 'frame' is '\(frame)'; format 1 knows only '\(Self.standardFrame)'")
        }
        if let g = georeference {
            guard g.latitude.isFinite, (-90...90).contains(g.latitude) else {
                throw .manifest("manifest.json field 'georeference.latitude' \(g.latitude) is outside [-90, 90]")
            }
            guard g.longitude.isFinite, (-180...180).contains(g.longitude) else {
                throw .manifest("manifest.json field 'georeference.longitude' \(g.longitude) is outside [-180, 180]")
            }
            guard g.altitude.isFinite else { throw .manifest("manifest.json field 'georeference.altitude' is not finite") }
            guard g.heading.isFinite, g.heading >= 0, g.heading < 360 else {
                throw .manifest("manifest.json field 'georeference.heading' \(g.heading) is outside [0, 360)")
            }
        }
        var seen = Set<String>()
        for (i, file) in files.enumerated() {
            try PackPath.check(file.path)
            guard file.path.hasPrefix("map/") || file.path.hasPrefix("attachments/") else {
                throw .manifest("manifest.json files[\(i)] '\(file.path)' is not under map/ or attachments/")
            }
            guard seen.insert(file.path).inserted else {
                throw .manifest("manifest.json lists '\(file.path)' twice")
            }
            guard file.length >= 0 else { throw .manifest("manifest.json files[\(i)] '\(file.path)' has a negative length") }
            guard SHA256.Digest(hex: file.sha256) != nil else {
                throw .manifest("manifest.json files[\(i)] '\(file.path)' has a sha256 that is not 64 hex digits")
            }
        }
    }
}

/// The rules for a path inside a pack.
public enum PackPath {
    /// The longest path accepted, in UTF-8 bytes.
    public static let maximumLength = 1024

    /// Checks that `path` is relative, made of non-empty components other than `.` and `..`,
    /// free of backslashes and control characters, and at most ``maximumLength`` bytes.
    ///
    /// - Throws: ``PackFormatError/unsafePath(_:reason:)``.
    public static func check(_ path: String) throws(PackFormatError) {
        guard !path.isEmpty else { throw .unsafePath(path, reason: "the path is empty") }
        guard path.utf8.count <= maximumLength else {
            throw .unsafePath(path, reason: "the path is longer than \(maximumLength) bytes")
        }
        guard !path.hasPrefix("/") else { throw .unsafePath(path, reason: "the path is absolute") }
        guard !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") }) else {
            throw .unsafePath(path, reason: "the path contains a backslash or a control character")
        }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { throw .unsafePath(path, reason: "the path contains '..'") }
            if component.isEmpty || component == "." {
                throw .unsafePath(path, reason: "the path has an empty or '.' component")
            }
        }
    }
}
