public import Foundation
public import Localizer
public import PackFormat
public import VPSImageIO

/// Localizes frames whose true poses are known and measures the errors:
/// the pack's validation set for `verify --deep`, or a synthetic capture's
/// queries for tests and benchmarks.
public enum PackValidation {
    /// One frame with a known pose.
    public struct Case: Sendable {
        public var name: String
        public var image: GrayImage
        public var camera: CameraIntrinsics
        /// True camera-to-pack pose: position and [x, y, z, w] quaternion (OpenGL axes).
        public var position: SIMD3<Double>
        public var rotation: SIMD4<Double>

        public init(name: String, image: GrayImage, camera: CameraIntrinsics, position: SIMD3<Double>, rotation: SIMD4<Double>) {
            self.name = name
            self.image = image
            self.camera = camera
            self.position = position
            self.rotation = rotation
        }
    }

    /// The outcome for one frame.
    public struct Outcome: Sendable {
        public var name: String
        public var localized: Bool
        /// Metres between the estimated and the true camera centre (nil when not localized).
        public var positionError: Double?
        /// Degrees of the rotation between the estimated and the true orientation.
        public var rotationError: Double?
        public var inliers: Int
        public var milliseconds: Double
    }

    /// Summary figures of a set of outcomes.
    public struct Report: Sendable {
        public var outcomes: [Outcome]

        /// Fraction of frames localized within `metres` and `degrees`.
        public func recall(metres: Double, degrees: Double) -> Double {
            guard !outcomes.isEmpty else { return 0 }
            let ok = outcomes.filter { ($0.positionError ?? .infinity) <= metres && ($0.rotationError ?? .infinity) <= degrees }.count
            return Double(ok) / Double(outcomes.count)
        }

        /// Median over localized frames; nil when none localized.
        public var medianPositionError: Double? { median(outcomes.compactMap(\.positionError)) }
        public var medianRotationError: Double? { median(outcomes.compactMap(\.rotationError)) }
        public var localizedCount: Int { outcomes.filter(\.localized).count }

        private func median(_ v: [Double]) -> Double? {
            guard !v.isEmpty else { return nil }
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
    }

    /// Localizes every case and compares with its truth.
    public static func run(_ cases: [Case], localizer: Localizer, options: LocalizerOptions = LocalizerOptions()) -> Report {
        var outcomes: [Outcome] = []
        for c in cases {
            let r = localizer.localize(image: c.image, camera: c.camera, options: options)
            var outcome = Outcome(name: c.name, localized: r.localized, positionError: nil, rotationError: nil,
                                  inliers: r.inliers, milliseconds: r.timings.total)
            if r.localized, let pose = r.pose {
                let p = SIMD3(pose.position.x, pose.position.y, pose.position.z)
                let d = p - c.position
                outcome.positionError = (d * d).sum().squareRoot()
                let q = SIMD4(pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w)
                outcome.rotationError = angleDegrees(q, c.rotation)
            }
            outcomes.append(outcome)
        }
        return Report(outcomes: outcomes)
    }

    /// The angle between two unit quaternions [x, y, z, w], in degrees.
    public static func angleDegrees(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
        let na = (a * a).sum().squareRoot(), nb = (b * b).sum().squareRoot()
        let d = abs((a * b).sum()) / (na * nb)
        return 2 * acos(min(1, d)) * 180 / .pi
    }

    /// The validation frames recorded in a pack (map/validation.json and its images).
    public static func cases(in pack: some PackContents) throws -> [Case] {
        guard pack.contains(ValidationSet.path) else { return [] }
        let set = try ValidationSet.decode(try pack.data(at: ValidationSet.path))
        return try set.frames.map { f in
            let decoded = try ImageDecoder.decode(data: try pack.data(at: f.image), source: f.image)
            guard f.position.count == 3, f.rotation.count == 4 else {
                throw BuildError.badData("\(ValidationSet.path): frame \(f.name) needs a 3-number position and a 4-number rotation")
            }
            return Case(name: f.name, image: decoded.image,
                        camera: CameraIntrinsics(fx: f.fx, fy: f.fy, cx: f.cx, cy: f.cy, k1: f.k1, k2: f.k2, p1: f.p1, p2: f.p2),
                        position: SIMD3(f.position[0], f.position[1], f.position[2]),
                        rotation: SIMD4(f.rotation[0], f.rotation[1], f.rotation[2], f.rotation[3]))
        }
    }

    /// The queries of a synthetic capture (queries.json and its sidecars).
    public static func queries(inCapture directory: URL) throws -> (inMap: [Case], outOfMap: [Case]) {
        let data = try BuildError.read(directory.appendingPathComponent("queries.json"), what: "queries file")
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let k = root["intrinsics"] as? [String: Any],
              let fx = k["fx"] as? Double, let fy = k["fy"] as? Double, let cx = k["cx"] as? Double, let cy = k["cy"] as? Double
        else { throw BuildError.badData("queries.json in \(directory.path) has no intrinsics") }
        let camera = CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy)
        func load(_ path: String) throws -> GrayImage {
            try ImageDecoder.decode(path: directory.appendingPathComponent(path).path).image
        }
        var inMap: [Case] = []
        for q in root["queries"] as? [[String: Any]] ?? [] {
            guard let image = q["image"] as? String, let p = q["position"] as? [Double], let r = q["rotation"] as? [Double], p.count == 3, r.count == 4 else {
                throw BuildError.badData("queries.json in \(directory.path) has a query without image, position and rotation")
            }
            inMap.append(Case(name: image, image: try load(image), camera: camera, position: SIMD3(p[0], p[1], p[2]), rotation: SIMD4(r[0], r[1], r[2], r[3])))
        }
        var outOfMap: [Case] = []
        for q in root["outOfMap"] as? [[String: Any]] ?? [] {
            guard let image = q["image"] as? String else { continue }
            outOfMap.append(Case(name: image, image: try load(image), camera: camera, position: .zero, rotation: SIMD4(0, 0, 0, 1)))
        }
        return (inMap, outOfMap)
    }
}
