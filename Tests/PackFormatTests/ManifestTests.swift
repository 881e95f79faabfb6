import Foundation
import PackFormat
import Testing

@Suite struct ManifestTests {
    let hash = String(repeating: "ab", count: 32)

    func json(_ files: String, extra: String = "") -> Data {
        Data("""
        {"format": 1, "tour": "demo", "version": 2, "created": "2026-11-30T19:00:00Z",
         "frame": "metres-y-up-right-handed", \(extra) "files": [\(files)]}
        """.utf8)
    }

    @Test func encodesAndDecodes() throws {
        let m = Manifest(tour: "demo", version: 2, created: Fixtures.created,
                         georeference: .init(latitude: 1, longitude: 2, altitude: 3, heading: 359.5),
                         files: [.init(path: "map/b", length: 1, sha256: hash), .init(path: "map/a", length: 2, sha256: hash)])
        #expect(m.files.map(\.path) == ["map/a", "map/b"], "files are kept sorted")
        #expect(try Manifest.decode(m.encoded()) == m)
    }

    @Test(arguments: [
        ("{\"path\": \"/map/a\", \"length\": 1, \"sha256\": \"H\"}", "absolute"),
        ("{\"path\": \"map/../a\", \"length\": 1, \"sha256\": \"H\"}", "'..'"),
        ("{\"path\": \"other/a\", \"length\": 1, \"sha256\": \"H\"}", "not under map/ or attachments/"),
        ("{\"path\": \"map/a\", \"length\": -1, \"sha256\": \"H\"}", "negative length"),
        ("{\"path\": \"map/a\", \"length\": 1, \"sha256\": \"xyz\"}", "64 hex digits"),
        ("{\"path\": \"map/a\", \"length\": 1, \"sha256\": \"H\"}, {\"path\": \"map/a\", \"length\": 1, \"sha256\": \"H\"}", "twice"),
        ("{\"path\": \"map//a\", \"length\": 1, \"sha256\": \"H\"}", "empty or '.' component"),
        ("{\"path\": \"map/a\", \"length\": \"1\", \"sha256\": \"H\"}", "files.[0].length"),
    ])
    func badFilesAreRefusedWithTheReason(files: String, reason: String) throws {
        let data = json(files.replacingOccurrences(of: "\"H\"", with: "\"\(hash)\""))
        do {
            _ = try Manifest.decode(data)
            Issue.record("accepted a manifest with \(files)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func badGeoreferenceIsRefused() throws {
        let data = json("", extra: "\"georeference\": {\"latitude\": 91, \"longitude\": 0, \"altitude\": 0, \"heading\": 0},")
        #expect(throws: PackFormatError.manifest("manifest.json field 'georeference.latitude' 91.0 is outside [-90, 90]")) {
            try Manifest.decode(data)
        }
        let heading = json("", extra: "\"georeference\": {\"latitude\": 0, \"longitude\": 0, \"altitude\": 0, \"heading\": 360},")
        #expect(throws: PackFormatError.self) { try Manifest.decode(heading) }
    }

    @Test func missingFieldIsNamed() throws {
        let data = Data("{\"format\": 1, \"tour\": \"demo\"}".utf8)
        do {
            _ = try Manifest.decode(data)
            Issue.record("accepted a manifest without version")
        } catch {
            #expect(error.description.contains("missing field"), "\(error)")
        }
    }

    @Test func unknownFrameIsRefused() throws {
        let data = Data(String(decoding: json(""), as: UTF8.self).replacingOccurrences(of: "metres-y-up-right-handed", with: "z-up").utf8)
        #expect(throws: PackFormatError.self) { try Manifest.decode(data) }
    }

    @Test func notJSONIsRefused() {
        #expect(throws: PackFormatError.self) { try Manifest.decode(Data("nope".utf8)) }
    }
}
