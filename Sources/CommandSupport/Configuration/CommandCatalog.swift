import ArgumentParser
import Foundation

/// Every subcommand of a command-line tool with its options, as ArgumentParser itself describes
/// them (`_dumpHelp()`, the JSON behind `--experimental-dump-help`). Read from the declarations,
/// never written by hand: the environment variables (`EnvironmentArguments`) and the generated
/// reference (`ConfigurationReference`) cannot miss an option or drift from `--help`.
public struct CommandCatalog: Sendable {
    /// One subcommand: its path below the root (`["webhooks", "add"]`) and its arguments.
    public struct Command: Sendable {
        public var path: [String]
        public var abstract: String
        public var isHidden: Bool
        public var options: [Option]
        public var subcommands: [String]
    }

    /// One option or flag (positional arguments are not settings and are left out).
    public struct Option: Sendable, Equatable {
        public var longNames: [String]
        public var shortNames: [String]
        public var isFlag: Bool
        public var isRepeating: Bool
        public var isHidden: Bool
        /// Required: what a one-shot command acts on (`webhooks add --url`), not a setting.
        public var isRequired: Bool
        public var help: String
        public var section: String?
        public var valueName: String?

        /// The spelling `--help` shows (`max-attempts`), nil for a short-only option.
        public var name: String? { longNames.first }
    }

    public var commands: [Command]

    public init(root: any ParsableCommand.Type) throws {
        try self.init(json: Data(root._dumpHelp().utf8))
    }

    /// From the JSON `--experimental-dump-help` prints (how tests read the built binary).
    public init(json: Data) throws {
        let dump = try JSONDecoder().decode(Dump.self, from: json)
        var commands: [Command] = []
        Self.walk(dump.command, path: [], into: &commands)
        self.commands = commands
    }

    /// The subcommand a command line names: the longest run of leading words that are subcommands.
    public func command(for arguments: [String]) -> Command? {
        var path: [String] = []
        for word in arguments {
            guard let current = commands.first(where: { $0.path == path }), current.subcommands.contains(word) else { break }
            path.append(word)
        }
        return commands.first { $0.path == path }
    }

    /// Options every command has and that are not settings.
    static let builtIn: Set<String> = ["help", "version", "experimental-dump-help"]

    private static func walk(_ info: Dump.CommandInfo, path: [String], into commands: inout [Command]) {
        let options = (info.arguments ?? []).filter { $0.kind != "positional" }.compactMap { argument -> Option? in
            let names = argument.names ?? []
            let longNames = names.filter { $0.kind == "long" }.map(\.name)
            guard Set(longNames).isDisjoint(with: builtIn) else { return nil }
            return Option(longNames: longNames, shortNames: names.filter { $0.kind != "long" }.map(\.name),
                          isFlag: argument.kind == "flag", isRepeating: argument.isRepeating,
                          isHidden: !(argument.shouldDisplay ?? true), isRequired: !argument.isOptional && !argument.isRepeating,
                          help: argument.abstract ?? "",
                          section: argument.sectionTitle, valueName: argument.valueName)
        }
        let children = (info.subcommands ?? []).filter { $0.commandName != "help" }
        commands.append(Command(path: path, abstract: info.abstract ?? "", isHidden: !(info.shouldDisplay ?? true),
                                options: options, subcommands: children.map(\.commandName)))
        for child in children { walk(child, path: path + [child.commandName], into: &commands) }
    }

    /// The part of ArgumentParser's ToolInfo JSON read here.
    private struct Dump: Decodable {
        struct Name: Decodable { var kind: String; var name: String }
        struct Argument: Decodable {
            var kind: String
            var names: [Name]?
            var isRepeating: Bool
            var isOptional: Bool
            var shouldDisplay: Bool?
            var abstract: String?
            var sectionTitle: String?
            var valueName: String?
        }
        final class CommandInfo: Decodable {
            var commandName: String
            var abstract: String?
            var shouldDisplay: Bool?
            var arguments: [Argument]?
            var subcommands: [CommandInfo]?
        }
        var command: CommandInfo
    }
}
