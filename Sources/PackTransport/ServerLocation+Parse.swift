public import Foundation

extension ServerLocation {
    /// Parses what a user types for `--server`: a directory path, a `file://` URL, or an `http(s)://` URL.
    ///
    /// Directories become absolute, standardised, symlink-free `file://` identities
    /// without a trailing slash, so `./site`, `site/` and `file:///abs/site` are one
    /// server. HTTP(S) URLs keep their path, lose a trailing slash, and have their
    /// scheme and host lowercased.
    ///
    /// - Parameters:
    ///   - text: the option's value.
    ///   - currentDirectory: what relative paths are relative to.
    /// - Throws: ``DownloadError/invalidServer(_:)`` naming what is wrong.
    public static func parse(_ text: String, currentDirectory: String = FileManager.default.currentDirectoryPath) throws(DownloadError) -> ServerLocation {
        guard !text.isEmpty else { throw .invalidServer("the server location is empty") }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard var components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
                throw .invalidServer("'\(text)' is not a valid HTTP(S) URL")
            }
            guard components.query == nil, components.fragment == nil else {
                throw .invalidServer("'\(text)': a server URL has no query or fragment")
            }
            guard components.user == nil, components.password == nil else {
                throw .invalidServer("'\(text)': credentials in the URL are not supported")
            }
            components.scheme = components.scheme?.lowercased()
            components.host = host.lowercased()
            while components.path.hasSuffix("/") { components.path.removeLast() }
            guard let url = components.url else { throw .invalidServer("'\(text)' is not a valid HTTP(S) URL") }
            return ServerLocation(kind: .http(url), identity: url.absoluteString)
        }
        let path: String
        if lower.hasPrefix("file://") {
            guard let url = URL(string: text), url.isFileURL, url.path.hasPrefix("/"),
                  (url.host ?? "").isEmpty || url.host == "localhost"
            else {
                throw .invalidServer("'\(text)' is not a valid file:// URL (it needs an absolute path, file:///dir)")
            }
            path = url.path
        } else if lower.contains("://") {
            throw .invalidServer("'\(text)': only http://, https://, file:// and directory paths are servers")
        } else {
            path = text.hasPrefix("/") ? text : (currentDirectory as NSString).appendingPathComponent(text)
        }
        var url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        var clean = url.path
        while clean.count > 1 && clean.hasSuffix("/") { clean.removeLast() }
        url = URL(fileURLWithPath: clean, isDirectory: false)
        return ServerLocation(kind: .directory(url), identity: url.absoluteString)
    }
}
