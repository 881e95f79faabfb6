import Foundation
import Testing
import Localizer
import PackFormat
import VPSImageIO

/// `vpspack localize` end to end: the built binary on real PNG files and a real pack archive.
@Suite(.serialized) struct LocalizeCommandTests {
    static let scene = LocalizeEndToEndTests.scene
    static let truth = WallScene.pose(position: Vector3(0.3, 1.6, -0.2), yaw: 8, pitch: 4)
    static let intrinsics = "520,520,319.5,239.5"

    /// A temporary directory with `wall.vpspack` (georeferenced), `q.png` (a view of the
    /// wall), `other.png` (another wall) and `garbage.png` (not an image).
    struct Fixture {
        let root: URL
        func path(_ name: String) -> String { root.appendingPathComponent(name).path }

        /// The expensive parts (rendering, the map, the archive), made once for the suite.
        static let files = Result { () throws -> [String: Data] in
            let staging = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-localize-staging-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: staging) }
            let folder = staging.appendingPathComponent("pack")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("map"), withIntermediateDirectories: true)
            let map = try LocalizeEndToEndTests.sharedMap.get()
            for (path, data) in try map.data.encoded() {
                try data.write(to: folder.appendingPathComponent(path))
            }
            let archive = staging.appendingPathComponent("wall.vpspack")
            try PackArchiveWriter.write(
                folder: folder, to: archive, tour: "wall", version: 1,
                georeference: Manifest.Georeference(latitude: 48.8566, longitude: 2.3522, altitude: 35, heading: 90)
            )
            return [
                "wall.vpspack": try Data(contentsOf: archive),
                "q.png": Data(try ImageEncoder.png(LocalizeCommandTests.scene.render(LocalizeCommandTests.truth))),
                "other.png": Data(try ImageEncoder.png(WallScene(seed: 99).render(LocalizeCommandTests.truth))),
                "garbage.png": Data("not an image at all".utf8),
            ]
        }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-localize-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, data) in try Fixture.files.get() {
                try data.write(to: root.appendingPathComponent(name))
            }
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    static func binary() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidates = [root.appendingPathComponent(".build/debug/vpspack")]
        if let argv0 = CommandLine.arguments.first {
            candidates.insert(URL(fileURLWithPath: argv0).deletingLastPathComponent().appendingPathComponent("vpspack"), at: 0)
        }
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "the vpspack binary was not found; run `swift build` first")
    }

    func vpspack(_ arguments: [String], in fixture: Fixture, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = try Self.binary()
        process.arguments = arguments
        process.currentDirectoryURL = fixture.root
        var env = ProcessInfo.processInfo.environment
        env["VPSPACK_STORE"] = fixture.path("store")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = fixture.root.appendingPathComponent(".out-\(UUID().uuidString)")
        let err = fixture.root.appendingPathComponent(".err-\(UUID().uuidString)")
        try Data().write(to: out)
        try Data().write(to: err)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    @Test func localizesAnImageFromAnArchiveAsJSON() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let run = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics, "--json"], in: fixture)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(run.lines.first, "no JSON on stdout: \(run.stdout)")
        #expect(run.lines.count == 1)
        #expect(object["image"] as? String == "q.png")
        #expect(object["localized"] as? Bool == true)
        let position = try #require(object["position"] as? [Double])
        #expect(position.count == 3)
        #expect((Vector3(position[0], position[1], position[2]) - Self.truth.cameraCenter).norm < 0.03)
        let rotation = try #require(object["rotation"] as? [Double])
        let expected = CameraPose(worldToCamera: Self.truth)
        let q = Quaternion(x: rotation[0], y: rotation[1], z: rotation[2], w: rotation[3])
        #expect(q.angle(to: expected.rotation) * 180 / Double.pi < 0.5)
        let heading = try #require(object["heading"] as? Double)
        #expect(abs(heading - expected.heading) < 0.5)
        #expect((object["forward"] as? [Double])?.count == 3)
        #expect((object["confidence"] as? Double ?? 0) >= 0.4)
        #expect((object["inliers"] as? Int ?? 0) >= 30)
        #expect((object["matches"] as? Int ?? 0) >= (object["inliers"] as? Int ?? 0))
        #expect(object["reprojectionError"] is Double)
        let timings = try #require(object["timings"] as? [String: Double])
        #expect(Set(timings.keys) == ["decode", "features", "match", "pose", "total"])
        // Georeferenced: the pack's -Z points east (heading 90), so the true heading is the pack heading + 90.
        let geo = try #require(object["geo"] as? [String: Double])
        #expect(abs((geo["heading"] ?? -1) - (expected.heading + 90).truncatingRemainder(dividingBy: 360)) < 0.5)
        #expect(abs((geo["latitude"] ?? 0) - 48.8566) < 1e-4 && abs((geo["altitude"] ?? 0) - 36.6) < 0.1)
    }

    /// `--gravity` as ARKit reports it: the truth's gravity localizes, a gravity 30° off does not.
    @Test func gravityPriorFromTheCommandLine() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        // Down (0, -1, 0) in ARKit camera axes: the camera-to-pack rotation transposed.
        let arkit = CameraPose(worldToCamera: Self.truth).rotationMatrix
        let g = arkit.transposed * Vector3(0, -1, 0)
        let right = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics, "--json",
                                 "--gravity", "\(g.x),\(g.y),\(g.z)"], in: fixture)
        #expect(right.status == 0, "\(right.stderr)")
        let position = try #require(right.lines.first?["position"] as? [Double])
        #expect((Vector3(position[0], position[1], position[2]) - Self.truth.cameraCenter).norm < 0.03)
        let off = Matrix3.rotation(axisAngle: Vector3(30 * Double.pi / 180, 0, 0)) * g
        let wrong = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics, "--json",
                                 "--gravity", "\(off.x),\(off.y),\(off.z)"], in: fixture)
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(wrong.lines.first?["localized"] as? Bool == false)
    }

    @Test func severalImagesInOrderWithExitOneWhenOneFails() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let run = try vpspack(["localize", "q.png", "other.png", "q.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics, "--json"], in: fixture)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.lines
        try #require(lines.count == 3, "stdout: \(run.stdout)")
        #expect(lines.map { $0["image"] as? String } == ["q.png", "other.png", "q.png"])
        #expect(lines.map { $0["localized"] as? Bool } == [true, false, true])
        #expect(lines[1]["reason"] is String)
        #expect(lines[1]["position"] == nil)
    }

    @Test func textOutputAndDebugImage() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let run = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics, "--debug-image", "debug.png"], in: fixture)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("q.png: localized (confidence"))
        #expect(run.stdout.contains("heading"))
        #expect(run.stdout.contains("geo        latitude"))
        let debug = try ImageDecoder.decode(path: fixture.path("debug.png"))
        #expect(debug.image.width == 640 && debug.image.height == 480)
    }

    @Test func sidecarIsUsedAndAMismatchIsBadData() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try Data(#"{"fx": 520, "fy": 520, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480}"#.utf8).write(to: fixture.root.appendingPathComponent("q.json"))
        let good = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--json"], in: fixture)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.lines.first?["localized"] as? Bool == true)
        try Data(#"{"fx": 520, "fy": 520, "cx": 319.5, "cy": 239.5, "width": 1280, "height": 960}"#.utf8).write(to: fixture.root.appendingPathComponent("q.json"))
        let bad = try vpspack(["localize", "q.png", "--pack", "wall.vpspack"], in: fixture)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("q.json") && bad.stderr.contains("1280x960") && bad.stderr.contains("640x480"))
    }

    @Test(arguments: [
        (["localize", "--pack", "wall.vpspack"], "IMAGE"),
        (["localize", "q.png"], "--pack"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--server", "s", "--tour", "t"], "not both"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", "520,520,x,239.5"], "cx"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", "520,520,319.5"], "--intrinsics"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--min-confidence", "1.5"], "--min-confidence"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--gravity", "0,0,0"], "--gravity"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--floors", "3,1"], "--floors"),
        (["localize", "q.png", "--pack", "wall.vpspack", "--radius", "5"], "--radius"),
    ])
    func usageErrorsExit64(arguments: [String], mentions: String) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let run = try vpspack(arguments, in: fixture)
        #expect(run.status == 64, "\(arguments): status \(run.status), \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(run.stderr) lacks \(mentions)")
    }

    @Test func badImagesAndIntrinsicsAreDataOrUsageErrors() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let garbage = try vpspack(["localize", "garbage.png", "--pack", "wall.vpspack", "--intrinsics", Self.intrinsics], in: fixture)
        #expect(garbage.status == 65, "\(garbage.stderr)")
        #expect(garbage.stderr.contains("garbage.png"))
        let absurd = try vpspack(["localize", "q.png", "--pack", "wall.vpspack", "--intrinsics", "-520,520,319.5,239.5"], in: fixture)
        #expect(absurd.status == 64, "\(absurd.stderr)")
        #expect(absurd.stderr.contains("positive"))
        let missing = try vpspack(["localize", "q.png", "--pack", "wall.vpspack"], in: fixture)
        #expect(missing.status != 0 && missing.stderr.contains("no intrinsics"))
    }

    @Test func aPackNotDownloadedExitsThree() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let run = try vpspack(["localize", "q.png", "--server", fixture.root.path, "--tour", "wall", "--intrinsics", Self.intrinsics], in: fixture)
        #expect(run.status == 3, "\(run.stderr)")
    }
}
