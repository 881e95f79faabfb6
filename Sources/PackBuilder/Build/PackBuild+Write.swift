public import Foundation
import Localizer
import PackFormat

extension PackBuild {
    /// Writes the map files, validation set and attachments into a staging
    /// folder and archives it with its manifest.
    static func writePack(points: [MergedPoint], keyframes: [MapKeyframe], validation: [ValidationFrame], frames: Int,
                          observations: Int, output: URL, options: BuildOptions, start: Date,
                          progress: (BuildProgress) -> Void) throws(BuildError) -> BuildSummary {
        guard !points.isEmpty else {
            throw .badData("the capture gave no stable map points (features need depth, or enough parallax between neighbouring frames)")
        }
        guard TourName.isValid(options.tour) else { throw .usage("--tour \(options.tour): expected 1-128 letters, digits, '.', '_', '-'") }
        progress(BuildProgress(stage: "writing", done: 0, total: 1))
        var mapPoints: [MapPoint] = []
        var descriptors: [SIMD4<UInt64>] = []
        var owners: [UInt32] = []
        mapPoints.reserveCapacity(points.count)
        for (i, p) in points.enumerated() {
            mapPoints.append(MapPoint(x: Float(p.position.x), y: Float(p.position.y), z: Float(p.position.z),
                                      floor: Int16(clamping: p.floor), observations: UInt16(clamping: p.observations)))
            for d in p.descriptors {
                descriptors.append(d)
                owners.append(UInt32(i))
            }
        }
        let files: [String: Data]
        do {
            files = try LocalizationMap.files(points: mapPoints, descriptors: descriptors, owners: owners, keyframes: keyframes)
        } catch {
            throw .badData("the built map is inconsistent: \(error.description)")
        }
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-build-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        try BuildError.makeDirectory(staging.appendingPathComponent("map"))
        for (path, data) in files { try BuildError.write(data, to: staging.appendingPathComponent(path), what: "map file") }
        try BuildError.write(PointColours.encode(points.map(\.colour)), to: staging.appendingPathComponent(PointColours.path), what: "map file")
        if !validation.isEmpty {
            try BuildError.makeDirectory(staging.appendingPathComponent("map/validation"))
            var records: [ValidationSet.Frame] = []
            for (k, v) in validation.enumerated() {
                let ext = v.source.pathExtension.isEmpty ? "img" : v.source.pathExtension.lowercased()
                let path = String(format: "map/validation/%03d.%@", k, ext)
                let data = try BuildError.read(v.source, what: "validation frame")
                try BuildError.write(data, to: staging.appendingPathComponent(path), what: "validation frame")
                let q = v.pose.rotation.quaternion
                records.append(ValidationSet.Frame(image: path, name: v.name, position: [v.pose.position.x, v.pose.position.y, v.pose.position.z],
                                                   rotation: [q.x, q.y, q.z, q.w], fx: v.camera.fx, fy: v.camera.fy,
                                                   cx: v.camera.localizerCX, cy: v.camera.localizerCY,
                                                   k1: v.camera.k1, k2: v.camera.k2, p1: v.camera.p1, p2: v.camera.p2,
                                                   width: v.camera.width, height: v.camera.height, floor: v.floor))
            }
            try BuildError.write(ValidationSet(frames: records).encoded(), to: staging.appendingPathComponent(ValidationSet.path), what: "validation set")
        }
        if !options.attachments.isEmpty {
            try BuildError.makeDirectory(staging.appendingPathComponent("attachments"))
            var seen = Set<String>()
            for a in options.attachments {
                let name = a.lastPathComponent
                guard seen.insert(name).inserted else { throw .usage("--attach: two attachments are named \(name)") }
                try BuildError.write(try BuildError.read(a, what: "attachment"), to: staging.appendingPathComponent("attachments/\(name)"), what: "attachment")
            }
        }
        let georeference = options.georeference.map {
            Manifest.Georeference(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude, heading: $0.heading)
        }
        let manifest: Manifest
        do {
            manifest = try PackArchiveWriter.write(folder: staging, to: output, tour: options.tour, version: options.version,
                                                   created: options.created, georeference: georeference)
        } catch {
            throw .io("cannot write the pack \(output.path): \(error)")
        }
        progress(BuildProgress(stage: "writing", done: 1, total: 1))
        let size = ((try? FileManager.default.attributesOfItem(atPath: output.path))?[.size] as? NSNumber)?.int64Value ?? 0
        _ = manifest
        return BuildSummary(frames: frames, keyframes: keyframes.count, validationFrames: validation.count, observations: observations,
                            points: points.count, descriptors: descriptors.count, archive: output, archiveBytes: size,
                            seconds: Date().timeIntervalSince(start))
    }
}

/// `map/colors.bin`: one RGB byte triple per map point, in point order.
///
/// Layout: "VPSC", u32 version 1, u32 point count, then 3 bytes per point.
/// Optional; `inspect --ply` uses it when present.
public enum PointColours {
    public static let path = "map/colors.bin"

    static func encode(_ colours: [SIMD3<Double>]) -> Data {
        var w = BinaryWriter()
        w.data.append(contentsOf: Array("VPSC".utf8))
        w.u32(1)
        w.u32(UInt32(colours.count))
        for c in colours {
            w.data.append(contentsOf: [UInt8(min(255, max(0, c.x.rounded()))), UInt8(min(255, max(0, c.y.rounded()))), UInt8(min(255, max(0, c.z.rounded())))])
        }
        return w.data
    }

    /// Reads the colours; nil when the file does not match `count` points.
    public static func decode(_ data: Data, count: Int) -> [SIMD3<UInt8>]? {
        let b = [UInt8](data)
        guard b.count == 12 + 3 * count, Array(b[0..<4]) == Array("VPSC".utf8) else { return nil }
        let n = Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24
        guard n == count else { return nil }
        return (0..<count).map { SIMD3(b[12 + 3 * $0], b[13 + 3 * $0], b[14 + 3 * $0]) }
    }
}

/// `map/validation.json`: frames held out of the map, with their images under
/// `map/validation/` and ground-truth poses, for `vpspack verify --deep`.
///
/// Intrinsics have pixel centres at integers (the localizer's convention);
/// `rotation` is camera-to-pack [x, y, z, w], OpenGL camera axes.
public struct ValidationSet: Codable, Sendable {
    public static let path = "map/validation.json"

    public struct Frame: Codable, Sendable {
        public var image: String
        public var name: String
        public var position: [Double]
        public var rotation: [Double]
        public var fx: Double
        public var fy: Double
        public var cx: Double
        public var cy: Double
        public var k1: Double
        public var k2: Double
        public var p1: Double
        public var p2: Double
        public var width: Int
        public var height: Int
        public var floor: Int
    }

    public var version = 1
    public var frames: [Frame]

    public init(frames: [Frame]) { self.frames = frames }

    public func encoded() -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? e.encode(self)) ?? Data()
    }

    public static func decode(_ data: Data) throws(BuildError) -> ValidationSet {
        do {
            return try JSONDecoder().decode(ValidationSet.self, from: data)
        } catch let e as DecodingError {
            throw .badData("\(path) is not a valid validation set: \(describe(e))")
        } catch {
            throw .badData("\(path) is not a valid validation set: \(error)")
        }
    }
}
