import Foundation
import PackFormat
import VPSCrypto
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one in-progress download in the store's `downloads/` directory.
///
/// `<key>.partial` holds the archive bytes received so far, `<key>.json` says
/// which archive (SHA-256, length) they belong to and the ETag to resume with,
/// `<key>.lock` is held (flock) by the downloading process. The key is derived
/// from the server identity and the tour.
struct PartialFiles {
    let partial: URL
    let sidecar: URL
    let lockFile: URL

    struct ResumeState: Codable, Equatable {
        var sha256: String
        var length: Int64
        var etag: String?
    }

    let server: String
    let tour: String

    init(directory: URL, server: String, tour: String) {
        self.server = server
        self.tour = tour
        let key = String(SHA256.hash(Array("\(server)\n\(tour)".utf8)).hex.prefix(24))
        partial = directory.appendingPathComponent("\(key).partial")
        sidecar = directory.appendingPathComponent("\(key).json")
        lockFile = directory.appendingPathComponent("\(key).lock")
    }

    /// The resume state when the sidecar describes `archive`, else nil.
    func resumeState(for archive: Offer.ArchiveReference) -> ResumeState? {
        guard let data = try? Data(contentsOf: sidecar),
              let state = try? JSONDecoder().decode(ResumeState.self, from: data),
              state.sha256 == archive.sha256.lowercased(), state.length == archive.length
        else { return nil }
        return state
    }

    /// Starts over for `archive`: an empty partial file and a fresh sidecar.
    func start(for archive: Offer.ArchiveReference) throws {
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DurableFile.write(Data(), to: partial)
        try record(etag: nil, for: archive)
    }

    /// Records the ETag the partial bytes came with.
    func record(etag: String?, for archive: Offer.ArchiveReference) throws {
        let state = ResumeState(sha256: archive.sha256.lowercased(), length: archive.length, etag: etag)
        try DurableFile.write(try JSONEncoder().encode(state), to: sidecar)
    }

    /// Deletes the partial file and its sidecar.
    func discard() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: sidecar)
    }

    /// Deletes the partial file when it holds `archive`, which is installed, and no process is downloading.
    func discardStale(of archive: Offer.ArchiveReference) {
        guard resumeState(for: archive) != nil, let lock = try? lock() else { return }
        defer { lock.unlock() }
        discard()
    }

    /// Takes the exclusive download lock for this (server, tour), failing at once when another process has it.
    func lock() throws(DownloadError) -> Lock {
        do {
            try FileManager.default.createDirectory(at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(lockFile.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        let fd = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot open \(lockFile.path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .inProgress(tour: tour, server: server)
        }
        return Lock(descriptor: fd)
    }

    /// A held download lock; ``unlock()`` releases it (so does the process ending).
    struct Lock {
        let descriptor: Int32
        func unlock() {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }
}
