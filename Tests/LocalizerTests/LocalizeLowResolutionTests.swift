import Foundation
import Testing
import Localizer
import PackBuilder
import PackFormat

/// At 160×120 a pixel spans about half a degree, so a pose can fit dozens of
/// inliers within τ and still be metres off. The uncertainty gate must turn
/// such images into "not localized".
@Suite("localizing small images")
struct LocalizeLowResolutionTests {
    @Test("at 160×120 no query is localized far from its ground truth; without the uncertainty gate one is")
    func noWrongPoseAtLowResolution() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-lowres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var synth = SynthOptions()
        synth.seed = 7
        synth.frames = 20
        synth.queries = 8
        synth.width = 160
        synth.height = 120
        _ = try SyntheticCapture.write(synth, to: dir)
        let output = dir.appendingPathComponent("lowres.vpspack")
        _ = try PackBuild.fromTransforms(dir.appendingPathComponent("transforms.json"), output: output, options: BuildOptions(tour: "lowres", version: 1)) { _ in }
        let localizer = try Localizer(pack: ArchivePack(path: output.path))
        let (queries, _) = try PackValidation.queries(inCapture: dir)
        try #require(queries.count == 8, "the capture has \(queries.count) queries")

        func far(_ o: PackValidation.Outcome) -> Bool {
            o.localized && ((o.positionError ?? .infinity) > 0.5 || (o.rotationError ?? .infinity) > 10)
        }
        func described(_ r: PackValidation.Report) -> String {
            r.outcomes.map { o in
                o.localized ? "\(o.name) " + String(format: "%.2f m %.1f° (%d inliers)", o.positionError ?? -1, o.rotationError ?? -1, o.inliers) : "\(o.name) not localized"
            }.joined(separator: "; ")
        }

        let gated = PackValidation.run(queries, localizer: localizer)
        #expect(!gated.outcomes.contains(where: far), "wrong poses reported as localized: \(described(gated))")

        // The scene does provoke the failure: with the gate opened, a wrong pose passes.
        var open = LocalizerOptions()
        open.solver.maxPositionUncertainty = .infinity
        open.solver.maxRotationUncertainty = .infinity
        let ungated = PackValidation.run(queries, localizer: localizer, options: open)
        #expect(ungated.outcomes.contains(where: far), "no wrong pose without the gate, so the test proves nothing: \(described(ungated))")
    }
}
