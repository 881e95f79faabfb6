import Foundation
import Testing
@testable import PackBuilder

@Suite("COLMAP models")
struct COLMAPTests {
    @Test("reads the real 4-image text model")
    func readsRealTextModel() throws {
        let dir = try TestSupport.sharedData("colmap-maupertuis").appendingPathComponent("reconstruction")
        let model = try COLMAPModel.read(directory: dir)
        #expect(model.cameras.count == 1)
        #expect(model.images.count == 4)
        #expect(model.points.count == 1039)
        let camera = try #require(model.cameras[1])
        #expect(camera.model == .simplePinhole)
        #expect(camera.width == 1919 && camera.height == 1079)
        #expect(camera.intrinsics.fx == 1847.53 && camera.intrinsics.cx == 959.5 && camera.intrinsics.cy == 539.5)
        let image = try #require(model.images[4])
        #expect(image.name == "03.jpg")
        #expect(image.qvec == SIMD4(0.860298, 0.0113506, 0.344769, 0.375358))
        // Every track element points at an observation that names the point back.
        for point in model.points.values {
            for e in point.track {
                #expect(model.images[e.imageID]?.observations[e.point2DIndex].point3D == point.id)
            }
        }
    }

    @Test("binary written from the text model reads back identically")
    func binaryRoundTrip() throws {
        let dir = try TestSupport.sharedData("colmap-maupertuis").appendingPathComponent("reconstruction")
        let text = try COLMAPModel.readText(directory: dir)
        let out = try TestSupport.temporaryDirectory("colmap")
        defer { try? FileManager.default.removeItem(at: out) }
        try text.writeBinary(directory: out)
        let binary = try COLMAPModel.read(directory: out)
        #expect(binary == text)
        // And back to text again, byte-stable across a second round.
        let textDir = out.appendingPathComponent("text")
        try binary.writeText(directory: textDir)
        #expect(try COLMAPModel.readText(directory: textDir) == text)
    }

    @Test("converted poses reproject the model's points onto their observations")
    func conventionsReproject() throws {
        let dir = try TestSupport.sharedData("colmap-maupertuis").appendingPathComponent("reconstruction")
        let model = try COLMAPModel.read(directory: dir)
        let alignment = model.worldAlignment()
        var errors: [Double] = []
        for point in model.points.values {
            let world = alignment * point.position
            for e in point.track {
                let image = try #require(model.images[e.imageID])
                let k = try #require(model.cameras[image.cameraID]).intrinsics
                let pose = model.packPose(of: image, alignment: alignment)
                let pixel = try #require(k.project(pose.toCamera(world)), "point \(point.id) behind camera \(image.id)")
                let o = image.observations[e.point2DIndex]
                errors.append(((pixel.x - o.x) * (pixel.x - o.x) + (pixel.y - o.y) * (pixel.y - o.y)).squareRoot())
            }
        }
        errors.sort()
        let median = errors[errors.count / 2]
        #expect(errors.count > 3000)
        #expect(median < 1.0, "median reprojection error \(median) px")
        // The aligned model is Y-up: cameras' up vectors point along +Y on average.
        let meanUp = model.images.values.map { model.packPose(of: $0, alignment: alignment).rotation.c1 }.reduce(SIMD3<Double>(), +)
        #expect(meanUp.y / (meanUp * meanUp).sum().squareRoot() > 0.999)
    }

    @Test("every supported camera model reads with its parameters", arguments: COLMAPModel.CameraModel.allCases)
    func cameraModels(_ model: COLMAPModel.CameraModel) throws {
        let params = Array([500.0, 510, 320, 240, 0.01, -0.002, 0.0003, -0.0004].prefix(model.parameterCount))
        let camera = COLMAPModel.Camera(id: 7, model: model, width: 640, height: 480, params: params)
        let m = COLMAPModel(cameras: [7: camera], images: [:], points: [:])
        let dir = try TestSupport.temporaryDirectory("camera")
        defer { try? FileManager.default.removeItem(at: dir) }
        try m.writeText(directory: dir.appendingPathComponent("t"))
        try m.writeBinary(directory: dir.appendingPathComponent("b"))
        let t = try COLMAPModel.read(directory: dir.appendingPathComponent("t"))
        let b = try COLMAPModel.read(directory: dir.appendingPathComponent("b"))
        #expect(t == m && b == m)
        let k = camera.intrinsics
        switch model {
        case .simplePinhole: #expect(k == CaptureCamera(fx: 500, fy: 500, cx: 510, cy: 320, width: 640, height: 480))
        case .pinhole: #expect(k == CaptureCamera(fx: 500, fy: 510, cx: 320, cy: 240, width: 640, height: 480))
        case .simpleRadial: #expect(k == CaptureCamera(fx: 500, fy: 500, cx: 510, cy: 320, width: 640, height: 480, k1: 240))
        case .radial: #expect(k == CaptureCamera(fx: 500, fy: 500, cx: 510, cy: 320, width: 640, height: 480, k1: 240, k2: 0.01))
        case .opencv:
            #expect(k == CaptureCamera(fx: 500, fy: 510, cx: 320, cy: 240, width: 640, height: 480, k1: 0.01, k2: -0.002, p1: 0.0003, p2: -0.0004))
        }
    }

    @Test("distortion projects and unprojects consistently")
    func distortionRoundTrip() {
        let k = CaptureCamera(fx: 500, fy: 510, cx: 320, cy: 240, width: 640, height: 480, k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.002)
        for pixel in [SIMD2(10.0, 20.0), SIMD2(320.0, 240.0), SIMD2(600.0, 400.0)] {
            let ray = k.ray(pixel)
            let back = k.project(ray * 2)
            #expect(back != nil)
            if let back { #expect(abs(back.x - pixel.x) < 1e-6 && abs(back.y - pixel.y) < 1e-6) }
        }
    }

    static let malformed: [(String, String, String, String)] = [
        ("1 FISHEYE 640 480 500 320 240", "", "", "camera model FISHEYE is not supported"),
        ("1 PINHOLE 640 480 500 320 240", "", "", "needs 4 parameters, got 3"),
        ("1 PINHOLE 640 480 500 x 320 240", "", "", "cameras.txt line 1: PARAMS[1] (field 6) should be a finite number, got 'x'"),
        ("1 PINHOLE 640 480 500 500 320 240", "1 1 0 0 0 0 0 0 2 a.jpg\n", "", "image 1 (a.jpg) uses camera 2"),
        ("1 PINHOLE 640 480 500 500 320 240", "1 1 0 0 0 0 0 0 1 a.jpg\n1 2\n", "", "images.txt line 2: the observations of image 1 should be triples"),
        ("1 PINHOLE 640 480 500 500 320 240", "1 2 0 0 0 0 0 0 1 a.jpg\n\n", "", "has a quaternion of length 2"),
        ("1 PINHOLE 640 480 500 500 320 240", "1 1 0 0 0 0 0 0 1 a.jpg\n1 2 5\n", "5 0 0 1 1 2 3 0.5 1 3", "refers to observation 3 of image 1, which has 1"),
        ("1 PINHOLE 640 480 500 500 320 240", "", "5 0 0 1 2 300 3 0.5", "G (field 6) should be an integer from 0 to 255"),
    ]

    @Test("malformed text models fail with a sentence naming the file, line and field", arguments: 0..<malformed.count)
    func malformedText(_ index: Int) throws {
        let (cameras, images, points, expected) = Self.malformed[index]
        let dir = try TestSupport.temporaryDirectory("bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(cameras.utf8).write(to: dir.appendingPathComponent("cameras.txt"))
        try Data(images.utf8).write(to: dir.appendingPathComponent("images.txt"))
        try Data(points.utf8).write(to: dir.appendingPathComponent("points3D.txt"))
        let error = #expect(throws: BuildError.self) { try COLMAPModel.read(directory: dir) }
        #expect(error?.code == .badData)
        #expect(error?.message.contains(expected) == true, "got: \(error?.message ?? "-")")
    }

    @Test("truncated and oversized binary files fail clearly")
    func malformedBinary() throws {
        let dir = try TestSupport.sharedData("colmap-maupertuis").appendingPathComponent("reconstruction")
        let model = try COLMAPModel.readText(directory: dir)
        let out = try TestSupport.temporaryDirectory("badbin")
        defer { try? FileManager.default.removeItem(at: out) }
        try model.writeBinary(directory: out)
        let cameras = out.appendingPathComponent("cameras.bin")
        let camerasData = try Data(contentsOf: cameras)
        try camerasData.prefix(camerasData.count - 5).write(to: cameras)
        let truncated = #expect(throws: BuildError.self) { try COLMAPModel.read(directory: out) }
        #expect(truncated?.message.contains("cameras.bin ends early: PARAMS at byte 48 needs 8 bytes, the file has 51") == true, "got: \(truncated?.message ?? "-")")
        try camerasData.write(to: cameras)
        let images = out.appendingPathComponent("images.bin")
        let full = try Data(contentsOf: images)
        var huge = full
        huge.replaceSubrange(0..<8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
        try huge.write(to: images)
        let oversized = #expect(throws: BuildError.self) { try COLMAPModel.read(directory: out) }
        #expect(oversized?.message.contains("more than the rest of the file can hold") == true, "got: \(oversized?.message ?? "-")")
        try (full + Data([1, 2, 3])).write(to: images)
        let trailing = #expect(throws: BuildError.self) { try COLMAPModel.read(directory: out) }
        #expect(trailing?.message.contains("3 unexpected bytes") == true, "got: \(trailing?.message ?? "-")")
    }

    @Test("a directory without a model says what it expected")
    func missingModel() throws {
        let dir = try TestSupport.temporaryDirectory("empty")
        defer { try? FileManager.default.removeItem(at: dir) }
        let error = #expect(throws: BuildError.self) { try COLMAPModel.read(directory: dir) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("holds no COLMAP model") == true)
    }
}
