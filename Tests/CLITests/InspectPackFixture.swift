import Foundation
import PackFormat

/// One small pack built from a tiny synthetic room with `vpspack synth` and
/// `vpspack build --validation 3`, made once per test process and shared by
/// the inspect and deep-verify tests (each test copies what it changes).
struct InspectPackFixture: Sendable {
    /// The folder holding the capture and the pack; removed by nobody (a temporary folder).
    let directory: URL
    let pack: URL
    /// Map points, as `vpspack build --json` reported them.
    let points: Int
    let validationFrames: Int

    /// The shared fixture, built on first use. Callers wait by suspending, so
    /// tests waiting for it do not hold the few threads of the test runner.
    static func shared() async throws -> InspectPackFixture {
        try await Cache.instance.fixture()
    }

    private actor Cache {
        static let instance = Cache()
        private var task: Task<InspectPackFixture, any Error>?

        func fixture() async throws -> InspectPackFixture {
            if let task { return try await task.value }
            let task = Task.detached { try InspectPackFixture.make() }
            self.task = task
            return try await task.value
        }
    }

    private static func make() throws -> InspectPackFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let synth = try StoreCLI.run(["synth", "--out", "capture", "--venue", "room", "--seed", "1", "--frames", "16", "--queries", "0",
                                      "--size", "256x192"], in: directory)
        guard synth.status == 0 else { throw CLIError("vpspack synth failed (\(synth.status)): \(synth.stderr)") }
        let build = try StoreCLI.run(["build", "--transforms", "capture/transforms.json", "-o", "room.vpspack", "--tour", "room",
                                      "--version", "1", "--validation", "3", "--json"], in: directory)
        guard build.status == 0 else { throw CLIError("vpspack build failed (\(build.status)): \(build.stderr)") }
        let summary = try build.json()
        guard let points = summary["points"] as? Int, let frames = summary["validationFrames"] as? Int else {
            throw CLIError("vpspack build --json gave no points or validationFrames: \(build.stdout)")
        }
        return InspectPackFixture(directory: directory, pack: directory.appendingPathComponent("room.vpspack"), points: points,
                                  validationFrames: frames)
    }

    /// A copy of the pack whose validation poses are moved `metres` along x: a valid archive
    /// (its manifest hashes match) whose validation frames can no longer be found where it says.
    func withShiftedValidation(metres: Double, to output: URL) throws {
        let source = try ArchivePack(path: pack.path)
        let folder = output.deletingLastPathComponent().appendingPathComponent("unpacked-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in source.manifest.files {
            let target = folder.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            var data = try source.data(at: file.path)
            if file.path == "map/validation.json" {
                guard var root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                      var frames = root["frames"] as? [[String: Any]] else {
                    throw CLIError("map/validation.json has no frames array")
                }
                for i in frames.indices {
                    guard var position = frames[i]["position"] as? [Double], position.count == 3 else {
                        throw CLIError("map/validation.json: frame \(i) has no 3-number position")
                    }
                    position[0] += metres
                    frames[i]["position"] = position
                }
                root["frames"] = frames
                data = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
            }
            try data.write(to: target)
        }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        try PackArchiveWriter.write(folder: folder, to: output, tour: source.manifest.tour, version: source.manifest.version + 1)
    }
}
