import Foundation
import Testing

/// Helpers shared by the builder tests.
enum TestSupport {
    /// The repository root (this file is Tests/BuilderTests/TestSupport.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `shared/data/NAME` next to the repository: the repository's parent holds
    /// `shared/` (CI and checkouts alike); ancestors further up are tried too,
    /// for git worktrees nested one level deeper. Fails the test when absent.
    static func sharedData(_ name: String) throws -> URL {
        var dir = repository.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("shared/data").appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        Issue.record("test data shared/data/\(name) not found next to the repository \(repository.path) (expected <repo>/../shared/data/\(name))")
        throw CancellationError()
    }

    /// A fresh temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory(_ label: String = "builder") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vpspack-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
