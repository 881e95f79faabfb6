import Foundation

/// The transport for a server location: a local directory or HTTP(S).
///
/// - Parameters:
///   - server: where the packs are.
///   - cancellation: raised on Ctrl-C; the transfer then stops with ``TransportError/interrupted``.
///   - configuration: HTTP timeouts and retries (by default from the `VPSPACK_HTTP_*` environment).
/// - Throws: ``DownloadError/transportUnavailable(_:)`` for a kind of server this build cannot reach.
public func makeTransport(
    for server: ServerLocation,
    cancellation: CancellationFlag? = nil,
    configuration: HTTPTransport.Configuration = .fromEnvironment()
) throws(DownloadError) -> any Transport {
    switch server.kind {
    case .directory(let url):
        let directory = DirectoryTransport(root: url)
        return cancellation.map { CancellableTransport(directory, cancellation: $0) } ?? directory
    case .http(let url):
        return HTTPTransport(baseURL: url, configuration: configuration, cancellation: cancellation)
    }
}
