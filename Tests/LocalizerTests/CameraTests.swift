import Foundation
import Testing
import Localizer

@Suite struct CameraTests {
    static let distorted = CameraIntrinsics(fx: 600, fy: 610, cx: 322, cy: 241, k1: -0.28, k2: 0.09, p1: 0.001, p2: -0.0007)

    @Test(arguments: [
        CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5),
        distorted,
        CameraIntrinsics(fx: 1450, fy: 1450, cx: 960, cy: 540, k1: 0.12, k2: -0.2, p1: 0, p2: 0),
    ])
    func distortionRoundTripsOverTheImage(camera: CameraIntrinsics) throws {
        var worst = 0.0
        for v in stride(from: -0.5, through: 480, by: 20) {
            for u in stride(from: -0.5, through: 640, by: 20) {
                let n = try #require(camera.undistort(u: u, v: v), "no undistortion at (\(u), \(v))")
                let back = camera.project(x: n.x, y: n.y)
                worst = max(worst, abs(back.u - u), abs(back.v - v))
            }
        }
        #expect(worst < 1e-8, "round trip error \(worst) px")
    }

    @Test func undistortionMovesPointsUnderBarrelDistortion() throws {
        let camera = CameraTests.distorted
        // Barrel distortion (k1 < 0) pulls image corners inwards, so the undistorted corner lies further out.
        let n = try #require(camera.undistort(u: 0, v: 0))
        let plain = ((0 - camera.cx) / camera.fx, (0 - camera.cy) / camera.fy)
        #expect(n.x < plain.0 && n.y < plain.1)
        let bearing = try #require(camera.bearing(u: camera.cx, v: camera.cy))
        #expect(bearing.angle(to: Vector3(0, 0, 1)) < 1e-12)
    }

    @Test func aFoldedDistortionIsRejectedNotInverted() {
        // k1 = -1.5 folds the radial polynomial at r² = 2/9: past it no bearing is valid.
        let camera = CameraIntrinsics(fx: 300, fy: 300, cx: 320, cy: 240, k1: -1.5)
        #expect(camera.undistort(u: 0, v: 0) == nil)
        #expect(throws: LocalizerError.self) { try camera.validate(width: 640, height: 480) }
    }

    @Test func scalingKeepsPixelCentres() {
        let camera = CameraIntrinsics(fx: 1000, fy: 1000, cx: 639.5, cy: 359.5)
        let half = camera.scaled(by: 0.5)
        #expect(half.fx == 500 && half.fy == 500)
        // The image centre stays the image centre: 1280x720 → 640x360.
        #expect(half.cx == 319.5 && half.cy == 179.5)
        // A pixel maps to the same bearing before and after scaling, under the documented convention.
        let original = camera.bearing(u: 100, v: 50)!
        let scaled = half.bearing(u: (100 + 0.5) * 0.5 - 0.5, v: (50 + 0.5) * 0.5 - 0.5)!
        #expect(original.angle(to: scaled) < 1e-12)
        let quarter = CameraTests.distorted.scaled(by: 0.25)
        #expect(quarter.k1 == CameraTests.distorted.k1 && quarter.p2 == CameraTests.distorted.p2)
    }

    @Test func parsesFourOrEightNumbers() throws {
        let four = try CameraIntrinsics(parsing: "525,525,319.5,239.5")
        #expect(four == CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5))
        let eight = try CameraIntrinsics(parsing: "600, 610, 322, 241, -0.28, 0.09, 0.001, -0.0007")
        #expect(eight == CameraTests.distorted)
    }

    @Test(arguments: ["525,525,319.5", "525,525,319.5,239.5,0.1", "a,525,319.5,239.5", "", "525,,319.5,239.5"])
    func malformedTextIsAClearError(text: String) {
        let error = #expect(throws: LocalizerError.self) { try CameraIntrinsics(parsing: text) }
        #expect(error?.kind == .invalidIntrinsics)
        #expect(error?.message.contains("intrinsics") == true)
    }

    @Test(arguments: [
        ("nan,525,319.5,239.5", "fx is not a finite number"),
        ("525,inf,319.5,239.5", "fy is not a finite number"),
        ("-525,525,319.5,239.5", "must be positive"),
        ("0,525,319.5,239.5", "must be positive"),
        ("5,5,319.5,239.5", "between 0.05 and 100"),
        ("1e9,1e9,319.5,239.5", "between 0.05 and 100"),
        ("525,100,319.5,239.5", "aspect ratio"),
        ("525,525,5000,239.5", "principal point"),
        ("525,525,319.5,239.5,40,0,0,0", "beyond ±10"),
    ])
    func absurdIntrinsicsAreRejected(text: String, expected: String) throws {
        let camera = try CameraIntrinsics(parsing: text)
        let error = #expect(throws: LocalizerError.self) { try camera.validate(width: 640, height: 480) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error") lacks '\(expected)'")
    }

    @Test func plausibleIntrinsicsPass() throws {
        try CameraTests.distorted.validate(width: 640, height: 480)
        try CameraIntrinsics(fx: 1450, fy: 1450, cx: 960, cy: 540).validate(width: 1920, height: 1080)
    }

    @Test func sidecarParsesAndChecksTheImageSize() throws {
        let json = #"{"fx": 600, "fy": 610, "cx": 322, "cy": 241, "width": 640, "height": 480, "k1": -0.28, "k2": 0.09, "p1": 0.001, "p2": -0.0007}"#
        let sidecar = try CameraIntrinsics.Sidecar(json: Data(json.utf8), path: "q.json")
        #expect(sidecar.width == 640 && sidecar.height == 480)
        let source = IntrinsicsSource.sidecar(sidecar, path: "q.json")
        #expect(try source.resolve(originalWidth: 640, originalHeight: 480, reduction: 1) == CameraTests.distorted)
        let error = #expect(throws: LocalizerError.self) { try source.resolve(originalWidth: 1280, originalHeight: 960, reduction: 1) }
        #expect(error?.kind == .invalidSidecar)
        #expect(error?.message.contains("640x480") == true && error?.message.contains("1280x960") == true)
        // Implausible values in a sidecar are bad data, named by the file.
        let negative = try CameraIntrinsics.Sidecar(json: Data(#"{"fx": -600, "fy": 610, "cx": 322, "cy": 241, "width": 640, "height": 480}"#.utf8), path: "n.json")
        let bad = #expect(throws: LocalizerError.self) { try IntrinsicsSource.sidecar(negative, path: "n.json").resolve(originalWidth: 640, originalHeight: 480, reduction: 1) }
        #expect(bad?.kind == .invalidSidecar && bad?.message.contains("n.json") == true)
    }

    @Test(arguments: [
        (#"[1, 2]"#, "not a JSON object"),
        (#"{"fx": 600, "fy": 610, "cx": 322, "width": 640, "height": 480}"#, "missing field 'cy'"),
        (#"{"fx": "600", "fy": 610, "cx": 322, "cy": 241, "width": 640, "height": 480}"#, "'fx' is not a finite number"),
        (#"{"fx": 600, "fy": 610, "cx": 322, "cy": 241, "width": 640.5, "height": 480}"#, "whole numbers"),
        (#"{"fx": 600, "fy": 610, "cx": 322, "cy": 241, "width": 640, "height": 480, "k1": true}"#, "'k1' is not a finite number"),
    ])
    func malformedSidecarsAreClearErrors(json: String, expected: String) {
        let error = #expect(throws: LocalizerError.self) { try CameraIntrinsics.Sidecar(json: Data(json.utf8), path: "q.json") }
        #expect(error?.message.contains("q.json") == true)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error") lacks '\(expected)'")
    }
}

@Suite struct CameraSidecarFileTests {
    @Test func sidecarIsFoundBesideTheImageAndResolvedForReducedDecoding() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-sidecar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = directory.appendingPathComponent("q.jpg").path
        #expect(try IntrinsicsSource.sidecar(forImage: image) == nil)
        let json = #"{"fx": 1000, "fy": 1000, "cx": 639.5, "cy": 359.5, "width": 1280, "height": 720}"#
        try Data(json.utf8).write(to: directory.appendingPathComponent("q.json"))
        let source = try #require(try IntrinsicsSource.sidecar(forImage: image))
        let half = try source.resolve(originalWidth: 1280, originalHeight: 720, reduction: 2)
        #expect(half == CameraIntrinsics(fx: 500, fy: 500, cx: 319.5, cy: 179.5))
        let error = #expect(throws: LocalizerError.self) { try source.resolve(originalWidth: 640, originalHeight: 480, reduction: 1) }
        #expect(error?.kind == .invalidSidecar)
        #expect(error?.message.contains("q.json") == true)
        // Given intrinsics are validated against the full image size.
        let absurd = IntrinsicsSource.given(CameraIntrinsics(fx: -1, fy: 500, cx: 320, cy: 240))
        #expect(throws: LocalizerError.self) { try absurd.resolve(originalWidth: 640, originalHeight: 480, reduction: 1) }
    }

    @Test func malformedSidecarFileIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-sidecar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{not json".utf8).write(to: directory.appendingPathComponent("q.png.json"))
        let error = #expect(throws: LocalizerError.self) { try IntrinsicsSource.sidecar(forImage: directory.appendingPathComponent("q.png").path) }
        #expect(error?.message.contains("q.png.json") == true)
    }
}
