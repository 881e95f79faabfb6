public import Foundation

/// Read-only access to one pack, wherever it lives: an opened archive or a pack installed in the store.
///
/// The localizer and the builder load `map/` files through this protocol, so
/// they never know (or depend on) where the bytes came from.
///
/// ```swift
/// func loadPoints(_ pack: some PackContents) throws -> Data {
///     try pack.data(at: "map/points.bin")
/// }
/// ```
public protocol PackContents {
    /// The pack's manifest: tour, version, frame, georeference, files.
    var manifest: Manifest { get }

    /// The whole content of the file listed at `path` (such as `map/points.bin`).
    ///
    /// - Throws: ``PackFormatError/noSuchFile(_:)`` when the manifest does not list
    ///   `path`; the source's own error when the bytes cannot be read.
    func data(at path: String) throws -> Data
}

extension PackContents {
    /// True when the manifest lists `path`.
    public func contains(_ path: String) -> Bool {
        manifest.file(at: path) != nil
    }
}
