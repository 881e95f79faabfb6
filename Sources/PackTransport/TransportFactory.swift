import Foundation

/// The transport for a server location: a directory now; HTTP(S) plugs in here.
///
/// - Throws: ``DownloadError/transportUnavailable(_:)`` for a kind of server this build cannot reach.
public func makeTransport(for server: ServerLocation) throws(DownloadError) -> any Transport {
    switch server.kind {
    case .directory(let url):
        return DirectoryTransport(root: url)
    case .http(let url):
        throw .transportUnavailable("HTTP transport not available yet: cannot reach \(url.absoluteString); use a local directory server")
    }
}
