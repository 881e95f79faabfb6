@preconcurrency import Glibc
import Foundation

/// The entry point: picks the command, runs it, maps its outcome to an exit status.
enum CLI {
    /// Every command, in the order `vpspack --help` lists them. Add new commands here.
    static var commands: [any Command.Type] {
        [
            VersionCommand.self,
            PackCommand.self,
            OfferCommand.self,
            DownloadCommand.self,
            ListCommand.self,
            InspectCommand.self,
            VerifyCommand.self,
            RemoveCommand.self,
            AttachmentCommand.self,
            TrustCommand.self,
            KeygenCommand.self,
            PublishCommand.self,
            LocalizeCommand.self,
            SynthCommand.self,
            BuildCommand.self,
        ]
    }

    /// Commands that work but are not listed by `--help` (benchmark helpers).
    static var hiddenCommands: [any Command.Type] {
        [
            BenchFeaturesCommand.self,
            BenchMatchingCommand.self,
            LearnBRIEFCommand.self,
            BenchPoseCommand.self,
            BenchMapCommand.self,
            EvaluateCommand.self,
        ]
    }

    static func usage() -> String {
        var lines = ["usage: vpspack COMMAND [OPTIONS]", "", "Offline localization packs: download, verify, localize.", "", "commands:"]
        let width = commands.map { $0.name.count }.max() ?? 0
        for c in commands {
            lines.append("  " + c.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.summary)
        }
        lines.append("")
        lines.append("Run `vpspack COMMAND --help` for a command's options.")
        return lines.joined(separator: "\n")
    }

    static func main(_ argv: [String]) -> Int32 {
        let output = Output()
        guard let name = argv.first else {
            output.err(usage())
            return ExitCode.usage.rawValue
        }
        if name == "--help" || name == "-h" || name == "help" {
            output.out(usage())
            return 0
        }
        guard let command = (commands + hiddenCommands).first(where: { $0.name == name }) else {
            output.err("vpspack: unknown command '\(name)'\n\n" + usage())
            return ExitCode.usage.rawValue
        }
        var arguments = Arguments(Array(argv.dropFirst()))
        if arguments.wantsHelp {
            output.out(command.help)
            return 0
        }
        do {
            return try command.run(&arguments, output).rawValue
        } catch let error as UsageError {
            output.err("vpspack \(command.name): \(error.message)")
            output.err(String(command.help.split(separator: "\n").first ?? ""))
            return ExitCode.usage.rawValue
        } catch {
            let (code, message) = describe(error)
            output.err("vpspack \(command.name): \(message)")
            return code.rawValue
        }
    }
}

exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
