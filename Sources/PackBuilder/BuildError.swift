import Foundation

/// Every failure of the building layer: reading captures, rendering, writing packs.
///
/// Each case carries one sentence naming what is wrong and where (file, entry,
/// field, line), suitable for the command line as it is.
public struct BuildError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: Sendable, Equatable {
        /// Input data is malformed (a capture file, a model, an image). Exit 65.
        case badData
        /// A file could not be read or written. Exit 74.
        case io
        /// An option or a combination of inputs makes no sense. Exit 64.
        case usage
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func badData(_ message: String) -> BuildError { BuildError(.badData, message) }
    static func io(_ message: String) -> BuildError { BuildError(.io, message) }
    static func usage(_ message: String) -> BuildError { BuildError(.usage, message) }

    /// Reads a whole file, or fails naming it.
    static func read(_ url: URL, what: String) throws(BuildError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw .io("cannot read the \(what) \(url.path): \(reason)")
        }
    }

    /// Writes a whole file (temp file and rename), or fails naming it.
    static func write(_ data: Data, to url: URL, what: String) throws(BuildError) {
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw .io("cannot write the \(what) \(url.path): \((error as NSError).localizedDescription)")
        }
    }

    static func makeDirectory(_ url: URL) throws(BuildError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create the directory \(url.path): \((error as NSError).localizedDescription)")
        }
    }
}
