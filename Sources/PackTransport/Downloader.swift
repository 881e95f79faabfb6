public import Foundation
public import PackFormat
public import PackStore
import VPSCrypto

/// Progress of an archive transfer.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the archive in the partial file so far (resumed bytes included).
    public var bytes: Int64
    /// The archive's length, from the offer.
    public var total: Int64
    /// Bytes that were already in the partial file when this attempt started.
    public var resumedFrom: Int64

    public init(bytes: Int64, total: Int64, resumedFrom: Int64) {
        self.bytes = bytes
        self.total = total
        self.resumedFrom = resumedFrom
    }
}

/// What a download did.
public enum DownloadOutcome: Sendable, Equatable {
    /// The offered version was committed.
    case installed(CommitResult, offer: Offer)
    /// The offered version is the installed one; nothing was fetched.
    case alreadyUpToDate(version: Int)
}

/// An offer fetched and checked, with what the store holds for the same tour.
public struct CheckedOffer: Sendable, Equatable {
    public var offer: Offer
    /// offer.json exactly as fetched.
    public var envelope: Data
    /// Key ids of the pinned keys whose signatures verified (empty when accepted unsigned).
    public var signedBy: [String]
    /// The installed version of the tour from this server, if any.
    public var installedVersion: Int?
    /// True when the offer is lower than the installed version and may still replace it, because every
    /// key that signed the installed offer has been revoked (``OfferPolicy`` fast-forward recovery).
    public var liftsVersionFloor = false

    /// True when the installed version is the offered one.
    public var isUpToDate: Bool { installedVersion == offer.version }
}

/// The one download code path: offer, checks, partial file with resume, hash, commit.
///
/// 1. Fetches `tours/<tour>/offer.json` (at most 64 KiB) and verifies the DSSE
///    envelope against the keys pinned for the server in the store (or accepts it
///    unsigned when allowed).
/// 2. Refuses an offer for another tour, another format, an expired one, or one
///    older than the installed version; an equal version is "already up to date".
/// 3. Streams the archive into `downloads/<key>.partial` in the store directory,
///    hashing as it arrives, resuming from an earlier partial file (its offset
///    and the ETag in the `.json` sidecar, sent as If-Range).
/// 4. Checks length and SHA-256 against the offer, then validates and commits
///    into the store in one transaction with the accepted offer.
///
/// Only one process downloads a given (server, tour) into a store at a time
/// (an exclusive `flock` on `<key>.lock`).
public final class Downloader {
    /// The largest offer.json accepted.
    public static let offerLimit: Int64 = 64 << 10

    public let store: PackStore
    public let server: ServerLocation
    public let transport: any Transport
    /// The clock offers are checked against.
    public var now: () -> Date = { Date() }

    public init(store: PackStore, server: ServerLocation, transport: any Transport) {
        self.store = store
        self.server = server
        self.transport = transport
    }

    /// Fetches and checks the offer for `tour`.
    ///
    /// - Throws: ``DownloadError`` for a bad tour name, a transport failure, or a refused offer
    ///   (including rollback below the installed version).
    public func checkOffer(tour: String, allowUnsigned: Bool) throws(DownloadError) -> CheckedOffer {
        guard TourName.isValid(tour) else {
            throw .invalidTour("'\(tour)' is not a valid tour name (1-128 letters, digits, '.', '_', '-', not starting with '.')")
        }
        let data: Data
        do {
            data = try transport.fetch("tours/\(tour)/offer.json", limit: Self.offerLimit)
        } catch .notFound(let why) {
            throw .transport(.notFound("\(server.identity) has no offer for tour '\(tour)' (\(why))"))
        } catch {
            throw .transport(error)
        }
        let keys: [Ed25519PublicKey]
        let installed: InstalledOffer?
        do {
            keys = try store.trustedKeys(server: server.identity)
            installed = try installedOffer(tour: tour)
        } catch {
            throw .store(error)
        }
        let offer: Offer
        let envelope: OfferEnvelope
        let pinned = Set(keys.map(\.keyID))
        do {
            envelope = try OfferEnvelope.decode(data)
            offer = try envelope.verifiedOffer(trustedKeys: keys, allowUnsigned: allowUnsigned)
            // Tour, rollback (with key-rotation recovery), expiry, format: one policy, OfferPolicy.
            _ = try OfferPolicy.evaluate(offer, requestedTour: tour, installed: installed, trustedKeyIDs: pinned, now: now())
        } catch {
            throw .offer(error)
        }
        let signedBy = envelope.signatures.map(\.keyid).filter { pinned.contains($0) }
        var checked = CheckedOffer(offer: offer, envelope: data, signedBy: signedBy, installedVersion: installed?.version)
        if let installed, offer.version < installed.version {
            // Only reachable through OfferPolicy's fast-forward recovery.
            checked.liftsVersionFloor = true
        }
        return checked
    }

    /// The installed version of `tour` and the key ids that signed its offer.
    private func installedOffer(tour: String) throws(StoreError) -> InstalledOffer? {
        guard let version = try store.installedVersion(server: server.identity, tour: tour) else { return nil }
        let envelope = try store.info(server: server.identity, tour: tour).offerEnvelope.flatMap { try? OfferEnvelope.decode($0) }
        return InstalledOffer(version: version, signerKeyIDs: Set(envelope?.signatures.map(\.keyid) ?? []))
    }

    /// Downloads, verifies and commits the offered version of `tour`.
    ///
    /// - Parameters:
    ///   - tour: the tour to install.
    ///   - allowUnsigned: accept an offer without a signature by a pinned key.
    ///   - attachments: host attachments committed with the pack.
    ///   - progress: called as bytes arrive (from the thread that calls this method).
    /// - Returns: ``DownloadOutcome/alreadyUpToDate(version:)`` when the offered version is installed.
    /// - Throws: ``DownloadError``; the installed version, if any, stays as it was.
    public func download(
        tour: String, allowUnsigned: Bool, attachments: [HostAttachment] = [],
        progress: (DownloadProgress) -> Void = { _ in }
    ) throws(DownloadError) -> DownloadOutcome {
        let checked = try checkOffer(tour: tour, allowUnsigned: allowUnsigned)
        if checked.isUpToDate {
            // A process killed after its commit but before its clean-up left the installed archive's partial file.
            PartialFiles(directory: store.downloadsDirectory, server: server.identity, tour: tour).discardStale(of: checked.offer.archive)
            return .alreadyUpToDate(version: checked.offer.version)
        }
        let offer = checked.offer
        let files = PartialFiles(directory: store.downloadsDirectory, server: server.identity, tour: tour)
        let lock = try files.lock()
        defer { lock.unlock() }
        let digest = try fetchArchive(offer: offer, into: files, progress: progress)
        CrashPoint.downloadComplete.reach()
        let result: CommitResult
        do {
            result = try store.commit(
                archive: files.partial, server: server.identity, tour: tour,
                offer: AcceptedOffer(envelope: checked.envelope, offer: offer, liftsVersionFloor: checked.liftsVersionFloor),
                archiveDigest: (offer.archive.length, digest), attachments: attachments
            )
        } catch {
            // A complete archive that the store refuses will not get better by resuming.
            if case .format = error { files.discard() }
            throw .store(error)
        }
        files.discard()
        return .installed(result, offer: offer)
    }

    /// Streams the archive into the partial file, resuming when possible; returns its SHA-256.
    private func fetchArchive(offer: Offer, into files: PartialFiles, progress: (DownloadProgress) -> Void) throws(DownloadError) -> String {
        let total = offer.archive.length
        var state = files.resumeState(for: offer.archive)
        var hasher = SHA256()
        let handle: FileHandle
        do {
            if !FileManager.default.fileExists(atPath: files.partial.path) || state == nil {
                try files.start(for: offer.archive)
                state = files.resumeState(for: offer.archive)
            }
            handle = try FileHandle(forUpdating: files.partial)
        } catch {
            throw .io("cannot open the partial download in \(files.partial.deletingLastPathComponent().path): \(IOErrorText.describe(error))")
        }
        defer { try? handle.close() }
        var offset: Int64 = 0
        do {
            // Re-hash what an earlier attempt left, so the final hash covers every byte.
            let size = Int64(try handle.seekToEnd())
            // Bytes without a recorded validator cannot be resumed safely; neither can too many bytes.
            if size > total || (size > 0 && state?.etag == nil) {
                try handle.truncate(atOffset: 0)
            } else {
                let existing = try FileBlockReader(path: files.partial.path)
                while offset < size, let block = try existing.next() {
                    hasher.update(block)
                    offset += Int64(block.count)
                }
            }
        } catch {
            throw .io("cannot read the partial download \(files.partial.path): \(IOErrorText.describe(error))")
        }
        let resumedFrom = offset
        var firstBlock = true
        do {
            // A partial file that is already complete (a crash right after the transfer) needs no request.
            guard offset < total else { throw StreamDone() }
            let response = try transport.stream(
                "tours/\(offer.tour)/\(offer.archive.path)", from: offset, ifRange: offset > 0 ? state?.etag : nil, maxLength: total,
                restart: { response in
                    try handle.truncate(atOffset: 0)
                    hasher = SHA256()
                    offset = 0
                    try files.record(etag: response.etag, for: offer.archive)
                },
                sink: { bytes in
                    let room = Int(total - offset)
                    let slice = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, room)])
                    try handle.write(contentsOf: slice)
                    hasher.update(slice)
                    offset += Int64(slice.count)
                    progress(DownloadProgress(bytes: offset, total: total, resumedFrom: resumedFrom))
                    if firstBlock { firstBlock = false; CrashPoint.downloadMidStream.reach() }
                }
            )
            if response.etag != state?.etag { try files.record(etag: response.etag, for: offer.archive) }
        } catch is StreamDone {
            // nothing left to fetch
        } catch let error as TransportError {
            throw .transport(error)
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .io("cannot write the partial download \(files.partial.path): \(IOErrorText.describe(error))")
        }
        guard offset == total else {
            // The transport finished normally (a cut connection is an error it throws after its
            // retries), so the server's file itself is shorter than the offer says.
            files.discard()
            throw .archiveMismatch("the server's \(offer.archive.path) ends at byte \(offset) but the offer says \(total) bytes; the partial download was discarded")
        }
        let digest = hasher.finalize().hex
        do {
            try OfferPolicy.checkArchive(offer, length: offset, sha256: digest)
        } catch {
            files.discard()
            throw .archiveMismatch("the archive \(offer.archive.path) has SHA-256 \(digest) but the offer says \(offer.archive.sha256.lowercased()); it was discarded")
        }
        return digest
    }
}

@available(*, unavailable)
extension Downloader: Sendable {}

/// Thrown (and caught) inside ``Downloader`` when the partial file already holds the whole archive.
private struct StreamDone: Error {}
