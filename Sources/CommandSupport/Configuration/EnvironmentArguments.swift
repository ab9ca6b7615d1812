/// The command line with the environment's settings added: for each option of the chosen
/// subcommand that the command line does not give, its variable (`OptionVariable`) becomes that
/// option, so flags win over variables and a value from a variable is parsed and validated by
/// exactly the code that parses the flag. Options, not variables, are what the commands read.
///
/// Required options are operands, not settings (`webhooks add --url`, `products set
/// --product-id`): no variable supplies them, so a stray variable never chooses what a one-shot
/// command acts on. Nothing is added to a request for help or the version: `--help` works
/// whatever the environment holds.
public struct EnvironmentArguments: Sendable {
    /// An option the environment set: which flag, from which variable.
    public struct Source: Sendable, Equatable {
        public var flag: String
        public var variable: String
    }

    public let arguments: [String]
    public let sources: [Source]

    public init(arguments: [String], catalog: CommandCatalog, environment: EnvironmentReader) throws {
        let asksForHelp = arguments.first == "help" || arguments.prefix { $0 != "--" }.contains {
            ["-h", "--help", "--version", "--experimental-dump-help"].contains($0)
        }
        guard !asksForHelp, let command = catalog.command(for: arguments) else {
            self.arguments = arguments
            self.sources = []
            return
        }
        let given = Self.names(in: arguments)
        var added: [String] = []
        var sources: [Source] = []
        for option in command.options where !option.isHidden && !option.isRequired {
            guard let flag = option.name, given.isDisjoint(with: option.longNames + option.shortNames) else { continue }
            guard let variable = OptionVariable.names(for: flag).first(where: { environment.string($0) != nil }),
                  let value = environment.string(variable) else { continue }
            if option.isFlag {
                let on: Bool?
                do { on = try environment.flag(variable) } catch {
                    throw ConfigurationError("\(variable) (for --\(flag)) must be 1/true/yes or 0/false/no")
                }
                guard on == true else { continue }
                added.append("--\(flag)")
            } else if option.isRepeating {
                added += EnvironmentReader.split(value).map { "--\(flag)=\($0)" }
            } else {
                added.append("--\(flag)=\(value)")
            }
            sources.append(Source(flag: flag, variable: variable))
        }
        // Right after the subcommand's name: before any `--` that ends the options.
        let head = command.path.count
        self.arguments = Array(arguments[..<head]) + added + Array(arguments[head...])
        self.sources = sources
    }

    /// The variable behind the first flag an error message names, if a variable set it: so a
    /// bad value is reported as the variable's, not as a flag nobody typed.
    public func source(namedIn message: String) -> Source? {
        sources.first { Self.mentions(message, flag: $0.flag) }
    }

    static func mentions(_ message: String, flag: String) -> Bool {
        var rest = message[...]
        while let range = rest.range(of: "--\(flag)") {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    /// Long (`--name`, `--name=value`) and short (`-n`, `-abc`) names on the command line, up to `--`.
    static func names(in arguments: [String]) -> Set<String> {
        var names: Set<String> = []
        for word in arguments.prefix(while: { $0 != "--" }) {
            if word.hasPrefix("--") {
                names.insert(String(word.dropFirst(2).prefix { $0 != "=" }))
            } else if word.hasPrefix("-"), word.count > 1, !(word.dropFirst().first?.isNumber ?? false) {
                names.formUnion(word.dropFirst().map(String.init))
            }
        }
        return names
    }
}
