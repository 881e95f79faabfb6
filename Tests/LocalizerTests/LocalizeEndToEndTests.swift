import Foundation
import Testing
import Localizer
import PackFormat
import VPSImageIO

/// Decode → features → match → pose on rendered views of a textured wall.
@Suite(.serialized) struct LocalizeEndToEndTests {
    static let scene = WallScene(seed: 2026)
    static let mapViews = [
        WallScene.pose(position: Vector3(0, 1.5, 0), yaw: 0),
        WallScene.pose(position: Vector3(-0.8, 1.5, -0.3), yaw: -12),
        WallScene.pose(position: Vector3(0.8, 1.4, -0.3), yaw: 12),
    ]

    /// The map, built once for the suite (rendering and extraction are the slow part).
    static let sharedMap = Result { try scene.map(views: mapViews) }

    func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    @Test func localizesNovelViewsOfTheWall() throws {
        let map = try Self.sharedMap.get()
        let localizer = Localizer(map: map)
        let queries = [
            WallScene.pose(position: Vector3(0.3, 1.6, -0.2), yaw: 8, pitch: 4),
            WallScene.pose(position: Vector3(-0.5, 1.3, 0.2), yaw: -6, pitch: -3),
        ]
        try withDirectory { directory in
            for (i, truth) in queries.enumerated() {
                let path = try WallScene.writePNG(Self.scene.render(truth), name: "q\(i).png", in: directory)
                let result = try localizer.localize(imageAt: path, intrinsics: .given(WallScene.camera))
                #expect(result.localized, "query \(i) not localized: \(result.reason ?? "")")
                let pose = try #require(result.pose)
                let position = (pose.position - truth.cameraCenter).norm
                let rotation = rotationErrorDegrees(pose.worldToCamera, truth)
                #expect(position < 0.03, "query \(i): position off by \(position) m")
                #expect(rotation < 0.5, "query \(i): rotation off by \(rotation)°")
                #expect(result.confidence >= 0.4)
                #expect(result.inliers >= 30)
                #expect(result.timings.total >= result.timings.pose)
            }
        }
    }

    /// A 1280×960 JPEG decoded at half size (DCT scaling): the intrinsics of
    /// the full image are rescaled with the pixel-centre convention, and the pose is as exact.
    @Test func reducedDecodingRescalesTheIntrinsics() throws {
        let localizer = Localizer(map: try Self.sharedMap.get())
        let truth = WallScene.pose(position: Vector3(0.2, 1.5, -0.3), yaw: 5, pitch: 2)
        // The same field of view at twice the resolution: fx' = 2 fx, c' = 2 (c + 0.5) - 0.5.
        let big = CameraIntrinsics(fx: 1040, fy: 1040, cx: 639.5, cy: 479.5)
        let image = Self.scene.render(truth, camera: big, width: 1280, height: 960)
        try withDirectory { directory in
            let path = directory.appendingPathComponent("big.jpg").path
            try ImageEncoder.write(try ImageEncoder.jpeg(image, quality: 95), to: path)
            var options = LocalizerOptions()
            options.workingSize = 640
            let result = try localizer.localize(imageAt: path, intrinsics: .given(big), options: options)
            let camera = try #require(result.camera)
            #expect(camera == WallScene.camera, "intrinsics after reduction: \(camera)")
            #expect(result.localized, "not localized: \(result.reason ?? "")")
            let pose = try #require(result.pose)
            #expect((pose.position - truth.cameraCenter).norm < 0.03)
            #expect(rotationErrorDegrees(pose.worldToCamera, truth) < 0.5)
        }
    }

    @Test func anotherWallIsNotLocalized() throws {
        let map = try Self.sharedMap.get()
        let localizer = Localizer(map: map)
        let elsewhere = WallScene(seed: 7)
        try withDirectory { directory in
            let truth = WallScene.pose(position: Vector3(0.1, 1.5, -0.1), yaw: 3)
            let path = try WallScene.writePNG(elsewhere.render(truth), name: "other.png", in: directory)
            let result = try localizer.localize(imageAt: path, intrinsics: .given(WallScene.camera))
            #expect(!result.localized)
            #expect(result.pose == nil)
            #expect(result.reason != nil)
        }
    }

    @Test func blankAndNoiseImagesAreNotLocalized() throws {
        let map = try Self.sharedMap.get()
        let localizer = Localizer(map: map)
        var g = SeededGenerator(seed: 5)
        let noise = GrayImage(width: 320, height: 240, pixels: (0..<(320 * 240)).map { _ in UInt8.random(in: 0...255, using: &g) })
        let blank = GrayImage(width: 320, height: 240, filledWith: 170)
        for image in [noise, blank] {
            let result = localizer.localize(image: image, camera: WallScene.camera.scaled(by: 0.5))
            #expect(!result.localized)
            #expect(result.pose == nil)
        }
    }

    @Test func aHintAwayFromTheMapFindsNothing() throws {
        let map = try Self.sharedMap.get()
        let localizer = Localizer(map: map)
        let truth = WallScene.pose(position: Vector3(0.2, 1.5, -0.1), yaw: 4)
        let image = Self.scene.render(truth)
        let near = localizer.localize(image: image, camera: WallScene.camera, region: MapRegion(center: SIMD3(0, 1.5, -2), radius: 5))
        #expect(near.localized)
        let far = localizer.localize(image: image, camera: WallScene.camera, region: MapRegion(center: SIMD3(50, 0, 50), radius: 5))
        #expect(!far.localized)
        #expect(far.matches == 0)
        #expect(far.reason == "the hint region holds no map points")
    }

    @Test func sidecarSizeMismatchIsAnError() throws {
        let map = try Self.sharedMap.get()
        let localizer = Localizer(map: map)
        try withDirectory { directory in
            let path = try WallScene.writePNG(Self.scene.render(Self.mapViews[0]), name: "q.png", in: directory)
            let json = #"{"fx": 520, "fy": 520, "cx": 319.5, "cy": 239.5, "width": 1280, "height": 960}"#
            try Data(json.utf8).write(to: directory.appendingPathComponent("q.json"))
            let error = #expect(throws: LocalizerError.self) { try localizer.localize(imageAt: path, intrinsics: nil) }
            #expect(error?.kind == .invalidSidecar)
            try FileManager.default.removeItem(at: directory.appendingPathComponent("q.json"))
            let missing = #expect(throws: LocalizerError.self) { try localizer.localize(imageAt: path, intrinsics: nil) }
            #expect(missing?.message.contains("no intrinsics") == true)
        }
    }
}
