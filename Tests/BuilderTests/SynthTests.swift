import Foundation
import Testing
import VPSImageIO
@testable import PackBuilder

@Suite("synthetic venues")
struct SynthTests {
    static func tinyOptions(seed: UInt64 = 3) -> SynthOptions {
        var o = SynthOptions()
        o.seed = seed
        o.frames = 3
        o.queries = 1
        o.width = 48
        o.height = 36
        return o
    }

    @Test("the same seed gives the same bytes; another seed does not")
    func determinism() throws {
        let a = try TestSupport.temporaryDirectory("synth-a"), b = try TestSupport.temporaryDirectory("synth-b")
        let c = try TestSupport.temporaryDirectory("synth-c")
        defer { for d in [a, b, c] { try? FileManager.default.removeItem(at: d) } }
        _ = try SyntheticCapture.write(Self.tinyOptions(), to: a)
        _ = try SyntheticCapture.write(Self.tinyOptions(), to: b)
        _ = try SyntheticCapture.write(Self.tinyOptions(seed: 4), to: c)
        let files = ["transforms.json", "queries.json", "images/frame_00001.jpg", "depth/frame_00002.png", "queries/query_000.jpg", "outside/noise.jpg"]
        for f in files {
            let x = try Data(contentsOf: a.appendingPathComponent(f)), y = try Data(contentsOf: b.appendingPathComponent(f))
            #expect(x == y, "\(f) differs between two runs with the same seed")
        }
        let x = try Data(contentsOf: a.appendingPathComponent("images/frame_00001.jpg"))
        let z = try Data(contentsOf: c.appendingPathComponent("images/frame_00001.jpg"))
        #expect(x != z)
    }

    @Test("depth at a pixel is the z-distance the ray cast gives, and lies on a surface")
    func depthMatchesRayCast() throws {
        var options = Self.tinyOptions()
        options.frames = 2
        options.queries = 0
        let dir = try TestSupport.temporaryDirectory("synth-depth")
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try SyntheticCapture.write(options, to: dir)
        let transforms = try TransformsFile.read(dir.appendingPathComponent("transforms.json"))
        let venue = Venue.make(options.venue, seed: options.seed, detail: 64)
        let k = try transforms.intrinsics(of: 0)
        let pose = try transforms.pose(of: 0)
        let depthPath = try #require(transforms.frames[0].depthFilePath)
        #expect(depthPath.hasSuffix(".png"), "depth_file_path \(depthPath)")
        let depthBytes = try Data(contentsOf: dir.appendingPathComponent(depthPath))
        #expect(ImageDecoder.sniff(depthBytes) == .png && depthBytes[24] == 16 && depthBytes[25] == 0, "not a 16-bit gray PNG")
        let depth = try DepthImage.read(dir.appendingPathComponent(depthPath))
        #expect(depth.width == k.width && depth.height == k.height)
        var checked = 0
        for y in stride(from: 1, to: k.height, by: 5) {
            for x in stride(from: 1, to: k.width, by: 5) {
                let d = Double(depth.values[y * k.width + x]) * transforms.metresPerDepthUnit
                guard d > 0 else { continue }
                // Independent ray: from the pose and intrinsics of the file, through the pixel centre.
                let ray = k.ray(SIMD2(Double(x) + 0.5, Double(y) + 0.5))
                let world = pose.toWorld(ray * d)
                let dir = pose.rotation * ray
                let hit = try #require(venue.scene.cast(origin: pose.position, direction: dir))
                #expect(abs(hit.t - d) <= 0.0006, "pixel (\(x), \(y)): depth \(d) m, ray cast \(hit.t) m")
                // The back-projected point lies on the plane of the quad the ray hits.
                let quad = venue.scene.quads[hit.quad]
                #expect(abs(world[quad.axis] - quad.position) < 0.002)
                checked += 1
            }
        }
        #expect(checked > 40)
    }

    @Test("depth from older captures, 16-bit PGM, reads the same as the PNG")
    func depthFromPGM() throws {
        var options = Self.tinyOptions()
        options.frames = 2
        options.queries = 0
        let dir = try TestSupport.temporaryDirectory("synth-depth-pgm")
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try SyntheticCapture.write(options, to: dir)
        let png = dir.appendingPathComponent("depth/frame_00000.png")
        let fromPNG = try DepthImage.read(png)
        #expect(fromPNG.values.contains { $0 > 0 }, "the depth image holds no surface")
        let pgm = dir.appendingPathComponent("depth/frame_00000.pgm")
        try Data(ImageEncoder.pgm(GrayImage16(width: fromPNG.width, height: fromPNG.height, pixels: fromPNG.values))).write(to: pgm)
        let fromPGM = try DepthImage.read(pgm)
        #expect(fromPGM.width == fromPNG.width && fromPGM.height == fromPNG.height)
        #expect(fromPGM.values == fromPNG.values)
        // A colour image where depth is expected is refused with the file named.
        let jpeg = dir.appendingPathComponent("images/frame_00000.jpg")
        #expect(throws: BuildError.self) { _ = try DepthImage.read(jpeg) }
    }

    @Test("a 3D point seen in one frame projects where the next frame sees it")
    func multiViewConsistency() throws {
        var options = Self.tinyOptions()
        options.frames = 400
        options.width = 64
        options.height = 48
        let venue = Venue.make(options.venue, seed: options.seed, detail: 64)
        let path = WalkingPath(route: venue.route)
        let renderer = Renderer(scene: venue.scene)
        let k = options.intrinsics
        // Two poses 30 cm apart along the walk, rendered for real.
        let p0 = path.pose(at: 10), p1 = path.pose(at: 10.3)
        let f0 = renderer.render(pose: p0, intrinsics: k, conditions: RenderConditions(), noiseSeed: 1)
        let f1 = renderer.render(pose: p1, intrinsics: k, conditions: RenderConditions(), noiseSeed: 2)
        var agree = 0, total = 0
        for y in stride(from: 2, to: k.height, by: 4) {
            for x in stride(from: 2, to: k.width, by: 4) {
                let d0 = Double(f0.depth[y * k.width + x])
                guard d0 > 0 else { continue }
                let world = p0.toWorld(k.ray(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) * d0)
                let c1 = p1.toCamera(world)
                guard let pixel = k.project(c1), pixel.x >= 0, pixel.y >= 0, pixel.x < Double(k.width), pixel.y < Double(k.height) else { continue }
                total += 1
                let d1 = Double(f1.depth[Int(pixel.y) * k.width + Int(pixel.x)])
                if abs(d1 - -c1.z) < 0.05 * d1 { agree += 1 }
            }
        }
        #expect(total > 50)
        #expect(Double(agree) > 0.8 * Double(total), "\(agree) of \(total) points agree")
    }

    @Test("the pose convention: heading 90° looks along +X with y up")
    func poseConvention() {
        let pose = CapturePose(position: SIMD3(1, 2, 3), headingDegrees: 90, pitchDegrees: 0)
        #expect(abs(pose.forward.x - 1) < 1e-12 && abs(pose.forward.z) < 1e-12)
        #expect(abs(pose.rotation.c1.y - 1) < 1e-12)
        #expect(abs(pose.headingDegrees - 90) < 1e-9)
        let k = CaptureCamera(fx: 100, fy: 100, cx: 50, cy: 40, width: 100, height: 80)
        // A point 2 m ahead and 0.5 m above the eye projects to the centre column, above the centre row.
        let pixel = k.project(pose.toCamera(SIMD3(3, 2.5, 3)))
        let expected = SIMD2(50.0, 15.0)
        #expect(pixel.map { abs($0.x - expected.x) < 1e-9 && abs($0.y - expected.y) < 1e-9 } == true, "projected to \(String(describing: pixel))")
        let q = pose.rotation.quaternion
        let back = Mat3(quaternionW: q.w, x: q.x, y: q.y, z: q.z)
        #expect(abs(back.c0.x - pose.rotation.c0.x) < 1e-12 && abs(back.c2.z - pose.rotation.c2.z) < 1e-12)
    }

    @Test("a frame renders with texture: not blank, not saturated, the images differ along the walk")
    func framesHaveContent() throws {
        let venue = Venue.make(.room, seed: 9, detail: 64)
        let renderer = Renderer(scene: venue.scene)
        let path = WalkingPath(route: venue.route)
        let k = CaptureCamera(fx: 40, fy: 40, cx: 32, cy: 24, width: 64, height: 48)
        let a = renderer.render(pose: path.pose(at: 1), intrinsics: k, conditions: RenderConditions(), noiseSeed: 1).gray
        let b = renderer.render(pose: path.pose(at: 6), intrinsics: k, conditions: RenderConditions(), noiseSeed: 1).gray
        let mean = Double(a.reduce(0) { $0 + Int($1) }) / Double(a.count)
        let variance = a.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(a.count)
        #expect(mean > 30 && mean < 225)
        #expect(variance > 100)
        #expect(a != b)
    }
}

@Suite("transforms.json")
struct TransformsTests {
    @Test("reads global and per-frame intrinsics and the depth scale")
    func reads() throws {
        let json = """
            {"fl_x": 500, "fl_y": 502, "cx": 320, "cy": 240, "w": 640, "h": 480, "k1": 0.01,
             "integer_depth_scale": 0.0005,
             "frames": [
               {"file_path": "a.png", "transform_matrix": [[1,0,0,1],[0,1,0,2],[0,0,1,3],[0,0,0,1]], "depth_file_path": "a_depth.png"},
               {"file_path": "b.png", "fl_x": 400, "transform_matrix": [[0,0,1,0],[0,1,0,0],[-1,0,0,0],[0,0,0,1]]}
             ]}
            """
        let dir = try TestSupport.temporaryDirectory("tf")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("transforms.json")
        try Data(json.utf8).write(to: url)
        let t = try TransformsFile.read(url)
        #expect(t.metresPerDepthUnit == 0.0005)
        #expect(try t.intrinsics(of: 0) == CaptureCamera(fx: 500, fy: 502, cx: 320, cy: 240, width: 640, height: 480, k1: 0.01))
        #expect(try t.intrinsics(of: 1).fx == 400)
        #expect(try t.pose(of: 0).position == SIMD3(1, 2, 3))
        // Frame b's camera z axis (column 2) is world +X, so it looks along world -X: heading 270°.
        let forward = try t.pose(of: 1).forward
        #expect(abs(forward.x + 1) < 1e-12)
        #expect(abs(try t.pose(of: 1).headingDegrees - 270) < 1e-9)
    }

    static let bad: [(String, String)] = [
        (#"{"frames": []}"#, "has no frames"),
        (#"{"fl_x": 1, "cx": 1, "cy": 1, "w": 2, "frames": [{"file_path": "a", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}"#, "frame 0 (a) has no h"),
        (#"{"fl_x": 1, "cx": 1, "cy": 1, "w": 2, "h": 2, "frames": [{"file_path": "a", "transform_matrix": [[1,0,0],[0,1,0],[0,0,1]]}]}"#, "not 4×4 finite numbers"),
        (#"{"fl_x": 1, "cx": 1, "cy": 1, "w": 2, "h": 2, "frames": [{"file_path": "a", "transform_matrix": [[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,1]]}]}"#, "it must be rigid"),
        (#"{"fl_x": -1, "cx": 1, "cy": 1, "w": 2, "h": 2, "frames": [{"file_path": "a", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}"#, "invalid intrinsics"),
        (#"{"frames": [{"transform_matrix": []}]}"#, "missing key 'file_path' in frames[0]"),
        (#"{"frames": "#, "not valid JSON"),
    ]

    @Test("malformed files fail naming the frame and the field", arguments: 0..<bad.count)
    func malformed(_ i: Int) throws {
        let dir = try TestSupport.temporaryDirectory("tfbad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("transforms.json")
        try Data(Self.bad[i].0.utf8).write(to: url)
        let error = #expect(throws: BuildError.self) { try TransformsFile.read(url) }
        #expect(error?.code == .badData)
        #expect(error?.message.contains(Self.bad[i].1) == true, "got: \(error?.message ?? "-")")
    }

    @Test("a missing file is an I/O error naming it")
    func missing() {
        let error = #expect(throws: BuildError.self) { try TransformsFile.read(URL(fileURLWithPath: "/nonexistent/transforms.json")) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("/nonexistent/transforms.json") == true)
    }
}
