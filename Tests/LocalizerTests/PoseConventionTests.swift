import Foundation
import Testing
import Localizer

@Suite struct PoseConventionTests {
    /// World-to-camera (OpenCV axes) of a camera at `position` whose
    /// camera-to-pack rotation in ARKit axes is `arkit`.
    func worldToCamera(arkit: Matrix3, position: Vector3) -> RigidTransform {
        let r = (arkit * Matrix3.diagonal(1, -1, -1)).transposed
        return RigidTransform(rotation: r, translation: -(r * position))
    }

    @Test func arkitIdentityLooksDownMinusZ() {
        let pose = CameraPose(worldToCamera: worldToCamera(arkit: .identity, position: Vector3(1, 2, 3)))
        #expect((pose.position - Vector3(1, 2, 3)).norm < 1e-12)
        #expect(pose.rotation.angle(to: .identity) < 1e-12)
        #expect((pose.forward - Vector3(0, 0, -1)).norm < 1e-12)
        #expect(abs(pose.heading) < 1e-9)
    }

    @Test func openCVIdentityIsAHalfTurnAboutX() {
        let pose = CameraPose(worldToCamera: .identity)
        // OpenCV's camera looks down +Z with y down: ARKit axes turned 180° about X.
        #expect(abs(abs(pose.rotation.x) - 1) < 1e-12)
        #expect((pose.forward - Vector3(0, 0, 1)).norm < 1e-12)
        #expect(abs(pose.heading - 180) < 1e-9)
    }

    @Test(arguments: [0.0, 30, 90, 135, 180, 225, 270, 359])
    func headingIsClockwiseFromMinusZ(degrees: Double) {
        // Turning clockwise seen from above is a negative rotation about +Y.
        let yaw = Matrix3.rotation(axisAngle: Vector3(0, -degrees * Double.pi / 180, 0))
        let pose = CameraPose(worldToCamera: worldToCamera(arkit: yaw, position: .zero))
        var diff = abs(pose.heading - degrees)
        diff = min(diff, 360 - diff)
        #expect(diff < 1e-9, "heading \(pose.heading) for \(degrees)")
        #expect(pose.heading >= 0 && pose.heading < 360)
        let expected = Quaternion(axis: Vector3(0, -1, 0), angle: degrees * Double.pi / 180)
        #expect(pose.rotation.angle(to: expected) < 1e-9)
        // Facing +X is 90°.
        if degrees == 90 { #expect((pose.forward - Vector3(1, 0, 0)).norm < 1e-12) }
    }

    @Test func quaternionIsXYZWAndUnit() {
        // 90° about +Y: [0, sin 45°, 0, cos 45°].
        let r = Matrix3.rotation(axisAngle: Vector3(0, Double.pi / 2, 0))
        let q = Quaternion(rotation: r)
        #expect(abs(q.y - 0.5.squareRoot()) < 1e-12 && abs(q.w - 0.5.squareRoot()) < 1e-12)
        #expect(abs(q.x) < 1e-12 && abs(q.z) < 1e-12)
        #expect(q.array == [q.x, q.y, q.z, q.w])
        #expect(q.rotationMatrix.maxDifference(r) < 1e-12)
    }

    @Test func pitchDoesNotChangeHeadingAndStraightDownUsesImageUp() {
        // Face +X (heading 90), then pitch down by 40°.
        let yaw = Matrix3.rotation(axisAngle: Vector3(0, -Double.pi / 2, 0))
        let pitch = Matrix3.rotation(axisAngle: Vector3(-40 * Double.pi / 180, 0, 0))
        let pose = CameraPose(worldToCamera: worldToCamera(arkit: yaw * pitch, position: .zero))
        #expect(abs(pose.heading - 90) < 1e-9)
        #expect(pose.forward.y < 0)
        // Straight down: the top of the image points along +X, so heading 90.
        let down = Matrix3.rotation(axisAngle: Vector3(-Double.pi / 2, 0, 0))
        let nadir = CameraPose(worldToCamera: worldToCamera(arkit: yaw * down, position: .zero))
        #expect((nadir.forward - Vector3(0, -1, 0)).norm < 1e-12)
        #expect(abs(nadir.heading - 90) < 1e-6)
    }

    @Test func worldToCameraRoundTrips() {
        var scene = SyntheticScene(seed: 5)
        for _ in 0..<100 {
            let truth = scene.pose()
            let back = CameraPose(worldToCamera: truth).worldToCamera
            #expect(back.rotation.maxDifference(truth.rotation) < 1e-12)
            #expect((back.translation - truth.translation).norm < 1e-9)
        }
    }

    // MARK: Georeference

    /// Earth-centred, Earth-fixed coordinates of a WGS84 position (an
    /// independent check of the tangent-plane conversion).
    func ecef(latitude: Double, longitude: Double, altitude: Double) -> Vector3 {
        let a = 6_378_137.0, e2 = 6.694_379_990_14e-3
        let phi = latitude * Double.pi / 180, lambda = longitude * Double.pi / 180
        let n = a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        return Vector3((n + altitude) * cos(phi) * cos(lambda), (n + altitude) * cos(phi) * sin(lambda), (n * (1 - e2) + altitude) * sin(phi))
    }

    /// East, north, up of `p` relative to the origin, from ECEF.
    func enu(_ p: Vector3, origin: Georeference) -> Vector3 {
        let o = ecef(latitude: origin.latitude, longitude: origin.longitude, altitude: origin.altitude)
        let d = p - o
        let phi = origin.latitude * Double.pi / 180, lambda = origin.longitude * Double.pi / 180
        let east = Vector3(-sin(lambda), cos(lambda), 0)
        let north = Vector3(-sin(phi) * cos(lambda), -sin(phi) * sin(lambda), cos(phi))
        let up = Vector3(cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
        return Vector3(d.dot(east), d.dot(north), d.dot(up))
    }

    @Test(arguments: [0.0, 30, 200])
    func georeferenceMapsPackAxesToCompassDirections(heading: Double) throws {
        let origin = try Georeference(latitude: 48.8566, longitude: 2.3522, altitude: 35, heading: heading)
        // 150 m along pack -Z, 40 m along +X, 12 m up.
        let geo = origin.geoPose(position: Vector3(40, 12, -150), heading: 10)
        let local = enu(ecef(latitude: geo.latitude, longitude: geo.longitude, altitude: geo.altitude), origin: origin)
        let h = heading * Double.pi / 180
        let expectedNorth = 150 * cos(h) - 40 * sin(h)
        let expectedEast = 150 * sin(h) + 40 * cos(h)
        #expect(abs(local.x - expectedEast) < 0.01, "east \(local.x) vs \(expectedEast)")
        #expect(abs(local.y - expectedNorth) < 0.01, "north \(local.y) vs \(expectedNorth)")
        #expect(abs(local.z - 12) < 0.01)
        var expectedHeading = (10 + heading).truncatingRemainder(dividingBy: 360)
        if expectedHeading < 0 { expectedHeading += 360 }
        #expect(abs(geo.heading - expectedHeading) < 1e-9)
    }

    @Test func georeferenceRejectsOutOfRangeValues() {
        #expect(throws: LocalizerError.self) { try Georeference(latitude: 91, longitude: 0, altitude: 0, heading: 0) }
        #expect(throws: LocalizerError.self) { try Georeference(latitude: 0, longitude: 181, altitude: 0, heading: 0) }
        #expect(throws: LocalizerError.self) { try Georeference(latitude: 0, longitude: 0, altitude: .nan, heading: 0) }
    }
}
