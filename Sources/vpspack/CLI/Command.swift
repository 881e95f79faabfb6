/// Exit statuses, as DESIGN.md fixes them (sysexits where one fits).
enum ExitCode: Int32 {
    case success = 0
    /// A check failed: verify found damage, localize found no pose.
    case checkFailed = 1
    /// The pack is not downloaded.
    case notDownloaded = 3
    case usage = 64
    /// Bad data: hash, signature, format.
    case dataError = 65
    case unavailable = 69
    case ioError = 74
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    case interrupted = 130
}

/// One `vpspack` subcommand.
protocol Command {
    /// The word after `vpspack`.
    static var name: String { get }
    /// One line for `vpspack --help`.
    static var summary: String { get }
    /// The full help text, starting with the usage line.
    static var help: String { get }
    /// Parses `arguments` (everything after the command name) and runs.
    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode
}

/// Options most commands share.
struct CommonOptions {
    var json: Bool
    var store: String?

    init(_ arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag("--json")
        store = try arguments.option("--store")
    }
}
