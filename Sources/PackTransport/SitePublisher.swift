public import Foundation
public import PackFormat
public import VPSCrypto
#if canImport(Glibc)
import Glibc
#endif

/// Writes an archive and its signed offer into a static site, as DESIGN.md lays it out:
/// `<site>/tours/<tour>/<tour>-<version>.vpspack` and `<site>/tours/<tour>/offer.json`.
///
/// The archive goes in first and the offer last, each through a temporary file,
/// fsync and rename, so a server never serves an offer whose archive is missing
/// or half written. Every version gets its own archive name, so a client resuming
/// the previous version keeps a consistent file until it sees the new offer.
///
/// Publishing the same version again is allowed only for the identical archive:
/// it re-signs the offer with a new expiry (how a producer keeps a pack fresh).
/// A lower version, or the same version with other bytes, is refused: clients
/// would reject the first as a rollback and never fetch the second.
public enum SitePublisher {
    /// What the archive's manifest says about the pack it holds.
    public struct PackIdentity: Sendable, Equatable {
        public var tour: String
        public var version: Int
        public var format: Int

        public init(tour: String, version: Int, format: Int) {
            self.tour = tour
            self.version = version
            self.format = format
        }
    }

    public struct Result: Sendable {
        public var offer: Offer
        public var offerFile: URL
        public var archiveFile: URL
        /// True when the same archive was already published and only the offer was re-signed.
        public var refreshedOnly: Bool
    }

    /// Publishes `archive` into `site`, signed by `key`, valid for `validity` seconds from `now`.
    ///
    /// - Throws: ``PublishError``.
    public static func publish(
        archive: URL, identity: PackIdentity, site: URL, key: Ed25519PrivateKey, validity: TimeInterval, now: Date = Date()
    ) throws(PublishError) -> Result {
        guard TourName.isValid(identity.tour) else {
            throw PublishError(.data, "\(archive.path): the manifest names an invalid tour '\(identity.tour)'")
        }
        guard identity.version > 0 else { throw PublishError(.data, "\(archive.path): the pack version must be positive") }
        guard validity > 0 else { throw PublishError(.data, "the offer's validity must be positive") }
        let tourDirectory = site.appendingPathComponent("tours").appendingPathComponent(identity.tour)
        do {
            try FileManager.default.createDirectory(at: tourDirectory, withIntermediateDirectories: true)
        } catch {
            throw PublishError(.io, "cannot create \(tourDirectory.path): \(IOErrorText.describe(error))")
        }
        let archiveName = "\(identity.tour)-\(identity.version).vpspack"
        let archiveFile = tourDirectory.appendingPathComponent(archiveName)
        let offerFile = tourDirectory.appendingPathComponent("offer.json")

        let previous = try publishedOffer(at: offerFile)
        if let previous, previous.version > identity.version {
            throw PublishError(.data, "\(offerFile.path) already offers version \(previous.version); publishing version \(identity.version) would be a rollback that clients refuse")
        }
        let archiveExisted = FileManager.default.fileExists(atPath: archiveFile.path)
        let (length, digest) = try copyHashing(from: archive, to: tourDirectory, finalName: archiveName, replace: false)
        var refreshedOnly = false
        if let previous, previous.version == identity.version {
            guard previous.archive.sha256 == digest.hex, previous.archive.length == length else {
                if !archiveExisted { try? FileManager.default.removeItem(at: archiveFile) }
                throw PublishError(.data, "\(offerFile.path) already offers version \(identity.version) with other archive bytes; give the pack a new version")
            }
            refreshedOnly = true
        }

        let offer = Offer(
            tour: identity.tour, version: identity.version, created: now, expires: now.addingTimeInterval(validity),
            format: identity.format, archive: .init(path: archiveName, length: length, sha256: digest.hex))
        let envelope: OfferEnvelope
        do { envelope = try OfferEnvelope(offer: offer, signedBy: [key]) } catch {
            throw PublishError(.data, "cannot sign the offer: \(error.message)")
        }
        try writeDurably(envelope.encoded(), to: offerFile)
        return Result(offer: offer, offerFile: offerFile, archiveFile: archiveFile, refreshedOnly: refreshedOnly)
    }

    /// The payload of the offer a site serves now, read without checking signatures (it is the producer's own site).
    static func publishedOffer(at url: URL) throws(PublishError) -> Offer? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url) else { throw PublishError(.io, "cannot read \(url.path)") }
        do {
            let envelope = try OfferEnvelope.decode(data)
            guard let payload = Data(base64Encoded: envelope.payload) else {
                throw OfferError.malformed("the payload is not valid base64")
            }
            return try Offer.decode(payload)
        } catch {
            throw PublishError(.data, "\(url.path) holds an offer that cannot be read (\(error)); move it away to publish afresh")
        }
    }

    /// Copies `source` into `directory/finalName` through a temporary file, hashing as it goes.
    ///
    /// When the target exists with identical bytes it is kept as is.
    static func copyHashing(from source: URL, to directory: URL, finalName: String, replace: Bool) throws(PublishError) -> (Int64, SHA256.Digest) {
        guard let input = FileHandle(forReadingAtPath: source.path) else {
            throw PublishError(.io, "cannot open the archive \(source.path)")
        }
        defer { try? input.close() }
        let target = directory.appendingPathComponent(finalName)
        let temporary = directory.appendingPathComponent(".\(finalName).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let output = FileHandle(forWritingAtPath: temporary.path) else {
            throw PublishError(.io, "cannot create \(temporary.path)")
        }
        var hasher = SHA256()
        var length: Int64 = 0
        do {
            while true {
                guard let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty else { break }
                hasher.update(chunk)
                try output.write(contentsOf: chunk)
                length += Int64(chunk.count)
            }
            try output.synchronize()
            try output.close()
        } catch {
            try? output.close()
            try? FileManager.default.removeItem(at: temporary)
            throw PublishError(.io, "cannot copy \(source.path) to \(target.path): \(IOErrorText.describe(error))")
        }
        let digest = hasher.finalize()
        if FileManager.default.fileExists(atPath: target.path), !replace {
            let existing = try hashFile(target)
            try? FileManager.default.removeItem(at: temporary)
            guard existing.0 == length, existing.1 == digest else {
                throw PublishError(.data, "\(target.path) already exists with other bytes; give the pack a new version")
            }
            return (length, digest)
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PublishError(.io, "cannot move the archive into place at \(target.path): \(reason)")
        }
        syncDirectory(directory)
        return (length, digest)
    }

    static func hashFile(_ url: URL) throws(PublishError) -> (Int64, SHA256.Digest) {
        guard let input = FileHandle(forReadingAtPath: url.path) else { throw PublishError(.io, "cannot open \(url.path)") }
        defer { try? input.close() }
        var hasher = SHA256()
        var length: Int64 = 0
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(chunk)
                length += Int64(chunk.count)
            }
        } catch {
            throw PublishError(.io, "cannot read \(url.path): \(IOErrorText.describe(error))")
        }
        return (length, hasher.finalize())
    }

    /// Temporary file, fsync, rename, fsync of the directory.
    static func writeDurably(_ data: Data, to url: URL) throws(PublishError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw PublishError(.io, "cannot write \(url.path): \(IOErrorText.describe(error))")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PublishError(.io, "cannot move \(url.lastPathComponent) into place in \(directory.path): \(reason)")
        }
        syncDirectory(directory)
    }

    private static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Parses a validity such as `30d`, `12h`, `90m`, `45s` or `2w`; a bare number means days.
    public static func parseValidity(_ text: String) -> TimeInterval? {
        guard let last = text.last else { return nil }
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        let (digits, unit): (Substring, TimeInterval) = units[last].map { (text.dropLast(), $0) } ?? (Substring(text), 86_400)
        guard let count = Int(digits), count > 0 else { return nil }
        return TimeInterval(count) * unit
    }
}

extension SitePublisher {
    /// Validates `archive` completely (manifest, every entry, every hash), then publishes it
    /// under the tour, version and format its manifest names.
    ///
    /// - Throws: ``PublishError``; a damaged archive is a `.data` error naming the entry at fault.
    public static func publish(
        archive: URL, site: URL, key: Ed25519PrivateKey, validity: TimeInterval, now: Date = Date()
    ) throws(PublishError) -> Result {
        let identity = try validatedIdentity(of: archive)
        return try publish(archive: archive, identity: identity, site: site, key: key, validity: validity, now: now)
    }

    /// Reads the whole archive with ``PackArchiveReader`` and returns what its manifest says.
    static func validatedIdentity(of archive: URL) throws(PublishError) -> PackIdentity {
        do {
            let reader = try PackArchiveReader(path: archive.path)
            try reader.readFiles(onBlock: { _, _ in }, onFileEnd: { _ in })
            let manifest = reader.manifest
            return PackIdentity(tour: manifest.tour, version: manifest.version, format: manifest.format)
        } catch let error as PackFormatError {
            if case .io(let why) = error { throw PublishError(.io, why) }
            throw PublishError(.data, "\(archive.path) cannot be published: \(error.description)")
        } catch {
            throw PublishError(.io, "\(archive.path): \(error)")
        }
    }
}
