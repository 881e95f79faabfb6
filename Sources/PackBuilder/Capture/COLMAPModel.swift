public import Foundation

/// A COLMAP sparse model: cameras, registered images and 3D points, read from
/// the text (`cameras.txt`, `images.txt`, `points3D.txt`) or the binary
/// (`*.bin`) files COLMAP writes.
///
/// Values are kept exactly as COLMAP states them: world-to-camera poses
/// (`qvec` = w, x, y, z; `tvec`), OpenCV camera axes (x right, y down, z
/// forward), pixel centres at +0.5. ``packPose(of:alignment:)`` converts to the
/// pack's convention.
public struct COLMAPModel: Sendable, Equatable {
    public var cameras: [Int: Camera]
    public var images: [Int: Image]
    public var points: [Int64: Point3D]

    public init(cameras: [Int: Camera], images: [Int: Image], points: [Int64: Point3D]) {
        self.cameras = cameras
        self.images = images
        self.points = points
    }

    /// The camera models vpspack reads, with COLMAP's numeric ids and parameter lists.
    public enum CameraModel: String, Sendable, CaseIterable {
        /// f, cx, cy
        case simplePinhole = "SIMPLE_PINHOLE"
        /// fx, fy, cx, cy
        case pinhole = "PINHOLE"
        /// f, cx, cy, k
        case simpleRadial = "SIMPLE_RADIAL"
        /// f, cx, cy, k1, k2
        case radial = "RADIAL"
        /// fx, fy, cx, cy, k1, k2, p1, p2
        case opencv = "OPENCV"

        /// The model id in COLMAP's binary files.
        public var id: Int32 {
            switch self {
            case .simplePinhole: 0
            case .pinhole: 1
            case .simpleRadial: 2
            case .radial: 3
            case .opencv: 4
            }
        }

        public init?(id: Int32) {
            guard let m = CameraModel.allCases.first(where: { $0.id == id }) else { return nil }
            self = m
        }

        public var parameterCount: Int {
            switch self {
            case .simplePinhole: 3
            case .pinhole: 4
            case .simpleRadial: 4
            case .radial: 5
            case .opencv: 8
            }
        }
    }

    public struct Camera: Sendable, Equatable {
        public var id: Int
        public var model: CameraModel
        public var width: Int
        public var height: Int
        public var params: [Double]

        public init(id: Int, model: CameraModel, width: Int, height: Int, params: [Double]) {
            self.id = id
            self.model = model
            self.width = width
            self.height = height
            self.params = params
        }

        /// The camera as pinhole intrinsics with OpenCV radial-tangential distortion.
        public var intrinsics: CaptureCamera {
            let p = params
            switch model {
            case .simplePinhole:
                return CaptureCamera(fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height)
            case .pinhole:
                return CaptureCamera(fx: p[0], fy: p[1], cx: p[2], cy: p[3], width: width, height: height)
            case .simpleRadial:
                return CaptureCamera(fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height, k1: p[3])
            case .radial:
                return CaptureCamera(fx: p[0], fy: p[0], cx: p[1], cy: p[2], width: width, height: height, k1: p[3], k2: p[4])
            case .opencv:
                return CaptureCamera(fx: p[0], fy: p[1], cx: p[2], cy: p[3], width: width, height: height,
                                        k1: p[4], k2: p[5], p1: p[6], p2: p[7])
            }
        }
    }

    public struct Observation: Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// The 3D point seen here, or -1 when none.
        public var point3D: Int64

        public init(x: Double, y: Double, point3D: Int64) {
            self.x = x
            self.y = y
            self.point3D = point3D
        }
    }

    public struct Image: Sendable, Equatable {
        public var id: Int
        /// World-to-camera rotation as a unit quaternion (w, x, y, z).
        public var qvec: SIMD4<Double>
        /// World-to-camera translation.
        public var tvec: SIMD3<Double>
        public var cameraID: Int
        public var name: String
        public var observations: [Observation]

        public init(id: Int, qvec: SIMD4<Double>, tvec: SIMD3<Double>, cameraID: Int, name: String, observations: [Observation]) {
            self.id = id
            self.qvec = qvec
            self.tvec = tvec
            self.cameraID = cameraID
            self.name = name
            self.observations = observations
        }

        /// The world-to-camera rotation matrix (OpenCV camera axes).
        public var worldToCamera: Mat3 { Mat3(quaternionW: qvec[0], x: qvec[1], y: qvec[2], z: qvec[3]) }

        /// The camera centre in COLMAP world coordinates: −Rᵀt.
        public var centre: SIMD3<Double> { -(worldToCamera.transposed * tvec) }
    }

    public struct TrackElement: Sendable, Equatable {
        public var imageID: Int
        public var point2DIndex: Int

        public init(imageID: Int, point2DIndex: Int) {
            self.imageID = imageID
            self.point2DIndex = point2DIndex
        }
    }

    public struct Point3D: Sendable, Equatable {
        public var id: Int64
        public var position: SIMD3<Double>
        public var color: SIMD3<UInt8>
        public var error: Double
        public var track: [TrackElement]

        public init(id: Int64, position: SIMD3<Double>, color: SIMD3<UInt8>, error: Double, track: [TrackElement]) {
            self.id = id
            self.position = position
            self.color = color
            self.error = error
            self.track = track
        }
    }

    /// Reads a model directory: the binary files when `cameras.bin` is there, else the text files.
    public static func read(directory: URL) throws(BuildError) -> COLMAPModel {
        let fm = FileManager.default
        if fm.fileExists(atPath: directory.appendingPathComponent("cameras.bin").path) {
            return try readBinary(directory: directory)
        }
        if fm.fileExists(atPath: directory.appendingPathComponent("cameras.txt").path) {
            return try readText(directory: directory)
        }
        throw .io("\(directory.path) holds no COLMAP model: expected cameras.txt, images.txt, points3D.txt or their .bin versions")
    }

    /// Checks that references between the three files resolve.
    func validate(_ where_: String) throws(BuildError) {
        for image in images.values.sorted(by: { $0.id < $1.id }) {
            guard cameras[image.cameraID] != nil else {
                throw .badData("\(where_): image \(image.id) (\(image.name)) uses camera \(image.cameraID), which cameras lists not")
            }
        }
        for point in points.values.sorted(by: { $0.id < $1.id }) {
            for element in point.track {
                guard let image = images[element.imageID] else {
                    throw .badData("\(where_): point \(point.id) is tracked in image \(element.imageID), which images lists not")
                }
                guard element.point2DIndex >= 0, element.point2DIndex < image.observations.count else {
                    throw .badData("\(where_): point \(point.id) refers to observation \(element.point2DIndex) of image \(element.imageID), which has \(image.observations.count)")
                }
            }
        }
    }
}

extension COLMAPModel {
    /// A rotation of COLMAP's world into the pack's world, whose +Y is up.
    ///
    /// COLMAP's world has no defined up. Photos are mostly taken upright, so the
    /// mean of the cameras' up directions (−y of the OpenCV camera) estimates
    /// it; the shortest rotation taking that to +Y is returned. With
    /// `estimateUp` false the identity is returned (the model is used as is).
    public func worldAlignment(estimateUp: Bool = true) -> Mat3 {
        guard estimateUp, !images.isEmpty else { return .identity }
        var up = SIMD3<Double>(repeating: 0)
        for image in images.values {
            up += -(image.worldToCamera.row(1))
        }
        guard length(up) > 1e-9 else { return .identity }
        let u = normalize(up), target = SIMD3<Double>(0, 1, 0)
        let axis = cross(u, target)
        let s = length(axis), c = dot(u, target)
        if s < 1e-12 { return c > 0 ? .identity : Mat3.rotation(axis: SIMD3(1, 0, 0), angle: .pi) }
        return Mat3.rotation(axis: axis, angle: atan2(s, c))
    }

    /// The pose of an image in the pack's convention: camera-to-world, OpenGL
    /// camera axes (x right, y up, looking down −Z), world rotated by `alignment`.
    ///
    /// COLMAP gives x_cam = R·X + t with OpenCV axes. The camera centre is
    /// C = −Rᵀt, the camera-to-world rotation Rᵀ, and OpenGL axes flip y and z:
    /// R_pack = A · Rᵀ · diag(1, −1, −1), C_pack = A · C.
    public func packPose(of image: Image, alignment: Mat3 = .identity) -> CapturePose {
        let r = image.worldToCamera.transposed
        let flip = Mat3(columns: SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1))
        return CapturePose(rotation: alignment * r * flip, position: alignment * image.centre)
    }
}
