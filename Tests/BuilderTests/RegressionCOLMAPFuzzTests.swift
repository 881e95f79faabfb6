import Foundation
import PackBuilder
import Testing

/// Inputs found by Scripts/fuzz that crashed the COLMAP readers, kept as regression tests.
///
/// The files live in Tests/FuzzCorpus/regressions/ in the COLMAP fuzz harness's layout:
/// two little-endian UInt32 lengths, then cameras, images, and the rest as points3D.
@Suite struct RegressionCOLMAPFuzzTests {
    /// Writes the three model files of a fuzz input into `dir`.
    static func unpack(_ name: String, into dir: URL, names: [String]) throws {
        let url = TestSupport.repository.appendingPathComponent("Tests/FuzzCorpus/regressions/\(name)")
        let bytes = Array(try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path)"))
        try #require(bytes.count >= 8)
        var offset = 8
        for i in 0..<3 {
            var end = bytes.count
            if i < 2 {
                var length = 0
                for b in 0..<4 { length |= Int(bytes[i * 4 + b]) << (8 * b) }
                end = min(bytes.count, offset + length)
            }
            try Data(bytes[offset..<end]).write(to: dir.appendingPathComponent(names[i]))
            offset = end
        }
    }

    /// A camera whose WIDTH (a UInt64 in cameras.bin) does not fit in an Int trapped
    /// on the conversion instead of being refused.
    @Test func binaryCameraSizeTooLargeForIntIsRefused() throws {
        let dir = try TestSupport.temporaryDirectory("colmap-fuzz")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.unpack("colmap-binary-huge-image-size.bin", into: dir, names: ["cameras.bin", "images.bin", "points3D.bin"])
        do {
            _ = try COLMAPModel.readBinary(directory: dir)
            Issue.record("the fuzzed model was accepted")
        } catch {
            #expect("\(error)".contains("cameras.bin: camera 1 has an image size"), "\(error)")
        }
    }
}
