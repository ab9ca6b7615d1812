/// docs/configuration-reference.md, generated from the commands' declarations (`CommandCatalog`):
/// every option of every subcommand with its variable, default and help. `receiptq
/// config-reference` prints it; `./Deploy/dev config-reference` writes it; a test fails when the
/// committed file differs or an option has no variable.
public enum ConfigurationReference {
    /// Settings with no flag, read from the environment by every command (or the one named).
    static let environmentOnly: [(variable: String, help: String, defaultValue: String)] = [
        ("RECEIPTQ_LOG_LEVEL", "trace, debug, info, notice, warning, error or critical (any case); logs go to stderr; refused before any log line when malformed.", "info"),
        ("RECEIPTQ_LOG_FORMAT", "text (one readable line each) or json (one JSON object per line); refused before any log line when malformed.", "text"),
        ("RECEIPTQ_SHARED_SECRET", "worker: the app-specific shared secret for verifyReceipt, or the file named by RECEIPTQ_SHARED_SECRET_FILE; never on the command line, never logged.", "unset"),
        ("RECEIPTQ_OTLP_HEADERS", "api, worker (with --otlp-endpoint): extra headers for the OTLP collector as key=value,key=value (a hosted collector's API key), or the file named by RECEIPTQ_OTLP_HEADERS_FILE; never logged.", "unset"),
    ]

    public static func markdown(_ catalog: CommandCatalog, tool: String) -> String {
        var lines = [
            "# Configuration reference",
            "",
            "<!-- Generated from the code by `./Deploy/dev config-reference` (`\(tool) config-reference`); do not edit.",
            "     CommandLineTests fails when this file is out of date. -->",
            "",
            "Every option of every `\(tool)` command can also be set by an environment variable named by one rule:",
            "`\(OptionVariable.prefix)` and the flag's name in capitals with `_` for `-` (`--max-attempts` → `\(OptionVariable.name(for: "max-attempts"))`).",
            "A flag on the command line wins over its variable. An on/off flag takes `1`/`true`/`yes` or `0`/`false`/`no`;",
            "a repeatable option takes a comma-separated list. A variable means the same in every command that has its",
            "option, so one env file (Deploy/systemd/receiptq.env.example) or ConfigMap (Deploy/kubernetes/configmap.yaml)",
            "configures every process. A bad value is refused at start naming the variable, with exit status 78.",
            "Required options are what a one-shot command acts on (`webhooks add --url`), not settings: they have no",
            "variable, so a stray variable never chooses the target of a command.",
            "Older names (\"also\") still work; the rule's name wins when both are set. See [configuration.md](configuration.md)",
            "for what the settings mean together.",
            "",
            "## Environment only",
            "",
            "| Variable | Default | Description |",
            "| --- | --- | --- |",
        ]
        for setting in environmentOnly {
            lines.append("| `\(setting.variable)` | \(setting.defaultValue) | \(cell(setting.help)) |")
        }
        for command in catalog.commands where !command.isHidden && !command.path.isEmpty {
            let options = command.options.filter { !$0.isHidden && $0.name != nil }
            guard !options.isEmpty else { continue }
            lines += ["", "## \(tool) \(command.path.joined(separator: " "))", "", cell(command.abstract)]
            var section: String?? = .none
            for option in options {
                if section != .some(option.section) {
                    section = .some(option.section)
                    lines += ["", "### \(option.section ?? "Options")", "",
                              "| Option | Variable | Default | Description |", "| --- | --- | --- | --- |"]
                }
                lines.append(row(option))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func row(_ option: CommandCatalog.Option) -> String {
        let flag = option.name ?? ""
        let (help, defaultValue) = split(option.help)
        let spelling = option.isFlag ? "`--\(flag)`" : "`--\(flag) <\(option.valueName ?? flag)>`"
        if option.isRequired {
            return "| \(spelling) | required: no variable | | \(cell(help)) |"
        }
        var variables = "`\(OptionVariable.name(for: flag))`"
        if let aliases = OptionVariable.aliases[OptionVariable.name(for: flag)] {
            variables += " (also " + aliases.map { "`\($0)`" }.joined(separator: ", ") + ")"
        }
        if let also = OptionVariable.alsoRead[flag] { variables += "; or \(also)" }
        let repeating = option.isRepeating ? " (repeatable)" : ""
        return "| \(spelling)\(repeating) | \(cell(variables)) | \(cell(defaultValue ?? "")) | \(cell(help)) |"
    }

    /// A help text and the default it ends with (`… Default: 30s.`), if any.
    public static func split(_ help: String) -> (help: String, defaultValue: String?) {
        guard let range = help.range(of: " Default: ", options: .backwards) ?? (help.hasPrefix("Default: ") ? help.range(of: "Default: ") : nil)
        else { return (help, nil) }
        var value = String(help[range.upperBound...])
        if value.hasSuffix(".") { value.removeLast() }
        return (String(help[..<range.lowerBound]), value)
    }

    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
