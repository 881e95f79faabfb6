public import Foundation

/// Where the store lives: `--store DIR`, else `$VPSPACK_STORE`, else `$XDG_DATA_HOME/vpspack`,
/// else `~/.local/share/vpspack`.
public enum StoreLocation {
    /// Resolves the store directory.
    ///
    /// Empty variables count as unset; `XDG_DATA_HOME` is ignored unless absolute,
    /// as the XDG Base Directory specification asks.
    ///
    /// - Parameters:
    ///   - explicit: the `--store` option, if given.
    ///   - environment: the process environment.
    /// - Throws: ``StoreError/location(_:)`` when nothing gives a location (no HOME).
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) -> URL {
        func absolute(_ path: String) -> URL {
            URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        }
        if let explicit, !explicit.isEmpty { return absolute(explicit) }
        if let value = environment["VPSPACK_STORE"], !value.isEmpty { return absolute(value) }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("vpspack").standardizedFileURL
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share/vpspack").standardizedFileURL
        }
        throw .location("cannot find a place for the store: give --store DIR or set VPSPACK_STORE (HOME is not set)")
    }
}
