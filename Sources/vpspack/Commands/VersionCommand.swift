/// `vpspack version`: the tool's version and the pack format it writes.
enum VersionCommand: Command {
    static let name = "version"
    static let summary = "print the version of vpspack"
    static let help = """
        usage: vpspack version [--json]

        Prints the vpspack version.
        """

    static func run(_ arguments: inout Arguments, _ output: Output) throws -> ExitCode {
        let json = arguments.flag("--json")
        try arguments.finish()
        if json {
            output.json(["version": vpspackVersion])
        } else {
            output.out("vpspack \(vpspackVersion)")
        }
        return .success
    }
}

let vpspackVersion = "0.1.0"
