import Foundation
import Testing

/// The localizer must not be able to reach the network: neither it nor any
/// target it depends on may depend on PackTransport or import FoundationNetworking.
@Suite struct LocalizeIsolationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let visionTargets = ["Localizer", "VPSImageIO", "PackFormat"]
    static let networkingModules: Set<String> = ["PackTransport", "FoundationNetworking"]

    /// `swift package dump-package` of this package: target name → names of the targets and products it depends on.
    static func dependencyGraph() throws -> [String: [String]] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", packageRoot.path, "--scratch-path", scratch.path, "dump-package"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swift package dump-package failed")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "dump-package printed no JSON object")
        let targets = try #require(object["targets"] as? [[String: Any]], "dump-package lists no targets")
        var graph: [String: [String]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            var names: [String] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // Each dependency is {"byName" | "target" | "product": [name, ...]}.
                for (_, value) in dependency {
                    if let list = value as? [Any], let first = list.first as? String { names.append(first) }
                }
            }
            graph[name] = names
        }
        return graph
    }

    /// Every target reachable from `root`, including `root`.
    static func closure(of root: String, in graph: [String: [String]]) -> Set<String> {
        var seen: Set<String> = [root]
        var stack = [root]
        while let next = stack.popLast() {
            for d in graph[next] ?? [] where !seen.contains(d) {
                seen.insert(d)
                stack.append(d)
            }
        }
        return seen
    }

    @Test func visionTargetsDependOnNoNetworkingModule() throws {
        let graph = try Self.dependencyGraph()
        // Sanity: the walk sees the real graph (the tool does depend on the transport).
        #expect(Self.closure(of: "vpspack", in: graph).contains("PackTransport"), "the dependency walk does not see vpspack -> PackTransport")
        for root in Self.visionTargets {
            #expect(graph[root] != nil, "target \(root) is missing from the package")
            let reachable = Self.closure(of: root, in: graph)
            let bad = reachable.intersection(Self.networkingModules)
            #expect(bad.isEmpty, "\(root) depends on \(bad.sorted().joined(separator: ", "))")
        }
    }

    @Test func visionSourcesImportNoNetworkingModule() throws {
        let graph = try Self.dependencyGraph()
        var reachable: Set<String> = []
        for root in Self.visionTargets { reachable.formUnion(Self.closure(of: root, in: graph)) }
        var scanned = 0
        for target in reachable.sorted() {
            let directory = Self.packageRoot.appendingPathComponent("Sources").appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where ["swift", "h", "c", "modulemap"].contains(file.pathExtension) {
                let text = try String(contentsOf: file, encoding: .utf8)
                scanned += 1
                for line in text.split(separator: "\n") {
                    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                    let module = String(words[i + 1])
                    #expect(!Self.networkingModules.contains(module), "\(target)/\(file.lastPathComponent) imports \(module)")
                }
                #expect(!text.contains("URLSession"), "\(target)/\(file.lastPathComponent) mentions URLSession")
            }
        }
        #expect(scanned >= 5, "found only \(scanned) source files to scan")
    }
}
