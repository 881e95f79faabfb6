public import Foundation

/// Where packs come from: a directory (path or `file://` URL) or an HTTP(S) base URL.
///
/// `identity` is the canonical spelling used to scope packs in the store, so
/// `./site`, `site/` and `file:///abs/site` name one server.
public struct ServerLocation: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case directory(URL)
        case http(URL)
    }

    public let kind: Kind
    /// Canonical form: an absolute `file://` URL without trailing slash, or the HTTP(S) URL without trailing slash.
    public let identity: String

    public var description: String { identity }

    public init(kind: Kind, identity: String) {
        self.kind = kind
        self.identity = identity
    }
}

/// What the transport layer reports when a fetch fails.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server has no such file (HTTP 404, or missing in the directory).
    case notFound(String)
    /// HTTP 401 or 403.
    case forbidden(String, status: Int)
    /// DNS failure, connection refused, timeouts, resets: the server cannot be reached now.
    case unavailable(String)
    /// A response larger than the allowed cap.
    case tooLarge(String, limit: Int64)
    /// The server answered something that breaks the protocol (bad Content-Range, redirect loop, ...).
    case protocolViolation(String)
    /// Local I/O while receiving (disk full, unwritable partial file).
    case io(String)
    /// Stopped by the user (Ctrl-C); the partial file is kept for a resume.
    case interrupted

    public var description: String {
        switch self {
        case .notFound(let m), .unavailable(let m), .protocolViolation(let m), .io(let m): return m
        case .forbidden(let m, let status): return "\(m) (HTTP \(status))"
        case .tooLarge(let m, let limit): return "\(m) is larger than the \(limit)-byte limit"
        case .interrupted: return "interrupted (Ctrl-C); a partial download is kept and the same command resumes it"
        }
    }
}

/// The answer to a ranged fetch.
public struct StreamResponse: Sendable, Equatable {
    /// The offset the body started at: the requested one, or 0 when the server ignored the range.
    public var startOffset: Int64
    /// The strong validator (ETag) of the resource, when the server gave one.
    public var etag: String?

    public init(startOffset: Int64, etag: String?) {
        self.startOffset = startOffset
        self.etag = etag
    }
}

/// Fetches files from a server in DESIGN.md's static layout.
///
/// Paths are relative to the server root, such as `tours/demo/offer.json`.
public protocol Transport: Sendable {
    /// Fetches a small file whole, failing with ``TransportError/tooLarge(_:limit:)`` past `limit` bytes.
    func fetch(_ path: String, limit: Int64) throws(TransportError) -> Data

    /// Streams a file from `offset` into `sink`, at most `maxLength` bytes in all from byte 0.
    ///
    /// `ifRange` carries the ETag a resume depends on; when the resource changed
    /// (or the server ignores ranges) the body starts at 0 and the response says so
    /// before the first byte reaches `sink`, through `restart`.
    ///
    /// `restart` is called every time the bytes about to reach `sink` start at byte 0:
    /// a fresh download (`offset` 0), a server that ignored the range, a changed file.
    /// The caller then drops what it holds (truncate, reset the hash) and may record
    /// the response's ETag for a later resume. A transport may retry internally; it
    /// then continues from the bytes already delivered, or calls `restart` again.
    /// Reading stops at `maxLength` bytes from byte 0, whatever the server still sends.
    func stream(
        _ path: String,
        from offset: Int64,
        ifRange: String?,
        maxLength: Int64,
        restart: (StreamResponse) throws -> Void,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> StreamResponse
}
