import Foundation
import Testing

/// What `verify ARCHIVE` and `inspect ARCHIVE` say when the file is missing or is not an archive at all.
@Suite struct ArchiveOpenErrorTests {
    @Test func missingArchiveIsAnIOErrorWithTheSystemsReason() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try StoreCLI.run(["verify", "missing.vpspack"], in: dir)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("cannot open the archive missing.vpspack: No such file or directory"), "\(run.stderr)")
    }

    @Test func bytesThatAreNoArchiveAreBadData() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("this is not a pack".utf8).write(to: dir.appendingPathComponent("junk.vpspack"))
        let verify = try StoreCLI.run(["verify", "junk.vpspack"], in: dir)
        #expect(verify.status == 1, "\(verify.stderr)")
        #expect(verify.stderr.contains("junk.vpspack is not a .vpspack archive"), "\(verify.stderr)")
        let inspect = try StoreCLI.run(["inspect", "junk.vpspack"], in: dir)
        #expect(inspect.status == 65, "\(inspect.stderr)")
        #expect(inspect.stderr.contains("junk.vpspack is not a .vpspack archive"), "\(inspect.stderr)")
        // One sentence names the file once.
        #expect(verify.stderr.components(separatedBy: "junk.vpspack").count == 2, "\(verify.stderr)")
    }
}
