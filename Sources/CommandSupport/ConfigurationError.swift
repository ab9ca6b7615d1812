/// A setting that cannot work, reported as one line naming the flag or variable (ArgumentParser
/// prints "Error: …"). Executables exit with `EX_CONFIG` (78) for it, not 1, so a supervisor
/// such as systemd can tell "fix the configuration" from "crashed, restart me".
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
