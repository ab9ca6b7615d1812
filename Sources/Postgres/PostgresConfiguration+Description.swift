/// Printed (a log line, an error, a failed test) as `redacted`: never the password.
extension PostgresConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PostgresConfiguration(\(redacted))" }
    public var debugDescription: String { description }
}
