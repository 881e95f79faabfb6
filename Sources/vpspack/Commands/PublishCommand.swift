import Foundation
import PackFormat
import PackTransport
import VPSCrypto

/// `vpspack publish ARCHIVE --site DIR --key KEYFILE`: the archive and its signed offer into a static site.
enum PublishCommand: Command {
    static let name = "publish"
    static let summary = "put a pack and its signed offer into a static site for any web server"
    static let help = """
        usage: vpspack publish ARCHIVE --site DIR --key KEYFILE [--expires 30d] [--json]

        Validates ARCHIVE completely, then writes it to DIR/tours/<tour>/<tour>-<version>.vpspack
        and a signed offer to DIR/tours/<tour>/offer.json (tour and version from the archive's
        manifest), each through a temporary file, fsync and rename, the offer last. Serve DIR
        with nginx, a CDN or an object store. Publishing the same archive again re-signs the
        offer with a new expiry; a lower version, or the same version with other bytes, is
        refused. See docs/trust.md.

        options:
          --site DIR        the site's root directory (created when missing)
          --key KEYFILE     the signing key, made by `vpspack keygen`
          --expires SPAN    how long the offer is valid: 30d (default), 12h, 90m, 2w, 3600s
          --json            one JSON object on stdout
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        let site = try arguments.required("--site")
        let keyPath = try arguments.required("--key")
        let validity = try arguments.option("--expires", "a span such as 30d, 12h, 90m, 2w or 3600s", SitePublisher.parseValidity)
            ?? 30 * 86_400
        let positionals = arguments.positionals()
        try arguments.finish()
        guard positionals.count == 1, let archivePath = positionals.first else {
            throw UsageError(positionals.isEmpty ? "missing ARCHIVE" : "give one ARCHIVE, got \(positionals.count)")
        }
        let key = try SigningKeyFile.read(URL(fileURLWithPath: keyPath))
        let result = try SitePublisher.publish(
            archive: URL(fileURLWithPath: archivePath), site: URL(fileURLWithPath: site), key: key, validity: validity)
        let offer = result.offer
        if json {
            output.json([
                "tour": offer.tour, "version": offer.version, "offer": result.offerFile.path, "archive": result.archiveFile.path,
                "length": offer.archive.length, "sha256": offer.archive.sha256, "created": ISO8601.format(offer.created),
                "expires": ISO8601.format(offer.expires), "keyID": key.publicKey.keyID, "refreshed": result.refreshedOnly,
            ])
        } else {
            let verb = result.refreshedOnly ? "re-signed" : "published"
            output.out("\(verb) tour \(offer.tour) version \(offer.version), valid until \(ISO8601.format(offer.expires)), signed by key \(key.publicKey.keyID)")
            output.out("  \(result.offerFile.path)")
            output.out("  \(result.archiveFile.path) (\(offer.archive.length) bytes, sha256 \(offer.archive.sha256))")
        }
        return .success
    }
}
