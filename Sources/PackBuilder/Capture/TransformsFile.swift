public import Foundation

/// A posed capture in the instant-ngp / nerfstudio `transforms.json` convention.
///
/// Intrinsics are global (`fl_x`, `fl_y`, `cx`, `cy`, `w`, `h`, optional
/// `k1`, `k2`, `p1`, `p2`) or per frame (the same keys inside a frame).
/// `transform_matrix` is camera-to-world with OpenGL camera axes (x right,
/// y up, looking down -Z), which is the pack's own convention: no conversion.
/// Depth images are 16-bit; metres = value × `depth_scale` (`integer_depth_scale`
/// as instant-ngp names it is accepted too; 0.001 when neither is given).
public struct TransformsFile: Codable, Sendable {
    public var cameraModel: String?
    public var fl_x: Double?
    public var fl_y: Double?
    public var cx: Double?
    public var cy: Double?
    public var w: Int?
    public var h: Int?
    public var k1: Double?
    public var k2: Double?
    public var p1: Double?
    public var p2: Double?
    /// Metres per unit of the 16-bit depth images.
    public var depthScale: Double?
    public var integerDepthScale: Double?
    public var frames: [Frame]

    public struct Frame: Codable, Sendable {
        public var filePath: String
        public var transformMatrix: [[Double]]
        public var depthFilePath: String?
        public var fl_x: Double?
        public var fl_y: Double?
        public var cx: Double?
        public var cy: Double?
        public var w: Int?
        public var h: Int?
        public var k1: Double?
        public var k2: Double?
        public var p1: Double?
        public var p2: Double?

        enum CodingKeys: String, CodingKey {
            case filePath = "file_path", transformMatrix = "transform_matrix", depthFilePath = "depth_file_path"
            case fl_x, fl_y, cx, cy, w, h, k1, k2, p1, p2
        }

        public init(filePath: String, transformMatrix: [[Double]], depthFilePath: String? = nil) {
            self.filePath = filePath
            self.transformMatrix = transformMatrix
            self.depthFilePath = depthFilePath
        }
    }

    enum CodingKeys: String, CodingKey {
        case cameraModel = "camera_model", depthScale = "depth_scale", integerDepthScale = "integer_depth_scale"
        case fl_x, fl_y, cx, cy, w, h, k1, k2, p1, p2, frames
    }

    public init(intrinsics k: CaptureCamera, frames: [Frame], depthScale: Double?) {
        cameraModel = k.hasDistortion ? "OPENCV" : "PINHOLE"
        fl_x = k.fx
        fl_y = k.fy
        cx = k.cx
        cy = k.cy
        w = k.width
        h = k.height
        if k.hasDistortion {
            k1 = k.k1
            k2 = k.k2
            p1 = k.p1
            p2 = k.p2
        }
        self.depthScale = depthScale
        self.integerDepthScale = depthScale
        self.frames = frames
    }

    /// Reads and checks a transforms.json: every frame must have a file path,
    /// a 4×4 (or 3×4) rigid transform and complete intrinsics.
    public static func read(_ url: URL) throws(BuildError) -> TransformsFile {
        let data = try BuildError.read(url, what: "transforms file")
        let file: TransformsFile
        do {
            file = try JSONDecoder().decode(TransformsFile.self, from: data)
        } catch let error as DecodingError {
            throw .badData("\(url.lastPathComponent) is not a valid transforms file: \(describe(error))")
        } catch {
            throw .badData("\(url.lastPathComponent) is not a valid transforms file: \(error)")
        }
        guard !file.frames.isEmpty else { throw .badData("\(url.lastPathComponent) has no frames") }
        for (i, frame) in file.frames.enumerated() {
            _ = try file.intrinsics(of: i, in: url.lastPathComponent)
            _ = try file.pose(of: i, in: url.lastPathComponent)
            if frame.filePath.isEmpty { throw .badData("\(url.lastPathComponent): frame \(i) has an empty file_path") }
        }
        return file
    }

    /// The metres per depth unit stated by the file (default 0.001, millimetres).
    public var metresPerDepthUnit: Double { depthScale ?? integerDepthScale ?? 0.001 }

    /// The intrinsics of frame `i`: its own keys, else the file's global ones.
    public func intrinsics(of i: Int, in name: String = "transforms.json") throws(BuildError) -> CaptureCamera {
        let f = frames[i]
        func need<T>(_ v: T?, _ key: String) throws(BuildError) -> T {
            guard let v else { throw .badData("\(name): frame \(i) (\(f.filePath)) has no \(key), neither in the frame nor at the top level") }
            return v
        }
        let fx = try need(f.fl_x ?? fl_x, "fl_x")
        let fy = f.fl_y ?? fl_y ?? fx
        let k = CaptureCamera(fx: fx, fy: fy, cx: try need(f.cx ?? cx, "cx"), cy: try need(f.cy ?? cy, "cy"),
                                 width: try need(f.w ?? w, "w"), height: try need(f.h ?? h, "h"),
                                 k1: f.k1 ?? k1 ?? 0, k2: f.k2 ?? k2 ?? 0, p1: f.p1 ?? p1 ?? 0, p2: f.p2 ?? p2 ?? 0)
        guard k.fx > 0, k.fy > 0, k.width > 0, k.height > 0, k.fx.isFinite, k.fy.isFinite, k.cx.isFinite, k.cy.isFinite else {
            throw .badData("\(name): frame \(i) (\(f.filePath)) has invalid intrinsics (focal lengths and size must be positive)")
        }
        return k
    }

    /// The camera-to-world pose of frame `i`.
    public func pose(of i: Int, in name: String = "transforms.json") throws(BuildError) -> CapturePose {
        let m = frames[i].transformMatrix
        guard (m.count == 4 || m.count == 3), m.allSatisfy({ $0.count == 4 }), m.joined().allSatisfy(\.isFinite) else {
            throw .badData("\(name): frame \(i) (\(frames[i].filePath)) has a transform_matrix that is not 4×4 finite numbers")
        }
        guard let pose = CapturePose(matrixRows: m) else {
            throw .badData("\(name): frame \(i) (\(frames[i].filePath)) has a degenerate transform_matrix rotation")
        }
        // A rigid transform: the rotation block must be orthonormal (scale 1) within 1 %.
        for c in 0..<3 {
            let col = SIMD3(m[0][c], m[1][c], m[2][c])
            if abs(length(col) - 1) > 0.01 {
                throw .badData("\(name): frame \(i) (\(frames[i].filePath)) has a transform_matrix with scale (column \(c) has length \(length(col))); it must be rigid")
            }
        }
        return pose
    }

    /// Canonical, human-readable JSON (sorted keys, indented).
    public func encoded() -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? e.encode(self)) ?? Data()
    }
}

/// One sentence for a decoding failure: which key at which path, and why.
func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
    switch error {
    case .keyNotFound(let key, let context):
        let at = path(context.codingPath)
        return "missing key '\(key.stringValue)'" + (at.isEmpty ? "" : " in \(at)")
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)) should be \(type)"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)) is null, expected \(type)"
    case .dataCorrupted(let context):
        let at = path(context.codingPath)
        return (at.isEmpty ? "" : at + ": ") + "not valid JSON (\(context.debugDescription))"
    @unknown default:
        return "\(error)"
    }
}
