import Foundation

/// The one place executables read `RECEIPTQ_*` settings from the environment. A command option
/// that was given wins; otherwise the variable; otherwise the configuration struct's default
/// (which lives only there). A variable that is set but malformed is a `ConfigurationError`
/// naming it, never silently ignored. Empty counts as unset.
public struct EnvironmentReader: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    public func string(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    public func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    public func duration(_ name: String) throws -> Duration? {
        guard let text = string(name) else { return nil }
        guard let value = Duration(argument: text) else {
            throw ConfigurationError("\(name) must be a duration such as 500ms, 15s, 5m, 72h or 30d")
        }
        return value
    }

    /// `1`, `true`, `yes` or `0`, `false`, `no` (any case).
    public func flag(_ name: String) throws -> Bool? {
        guard let text = string(name)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw ConfigurationError("\(name) must be 1/true/yes or 0/false/no")
        }
    }

    /// A secret: the contents of the file named by `NAME_FILE` (as containers and systemd's
    /// `LoadCredential=` hand secrets over; a trailing newline is dropped), else `NAME`. Setting
    /// both is an error: which one wins would be a guess.
    public func secret(_ name: String) throws -> String? {
        let file = name + "_FILE"
        guard let path = string(file) else { return string(name) }
        guard string(name) == nil else { throw ConfigurationError("set \(name) or \(file), not both") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(file): cannot read \(path)")
        }
        let trimmed = text.trimmingCharacters(in: .newlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Comma-separated, trimmed, empty items dropped.
    public func list(_ name: String) -> [String]? {
        string(name).map(Self.split)
    }

    public static func split(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
