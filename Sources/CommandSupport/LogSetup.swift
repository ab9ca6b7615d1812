import Foundation
import Logging

/// Logs go to stderr, one line each, at `RECEIPTQ_LOG_LEVEL` (default `info`). Called once by
/// each long-running subcommand. Receipt data, secrets and tokens are never passed to a logger.
public enum LogSetup {
    /// One-shot commands (migrate, stats, bench) pass `.error`: their failure is the one line
    /// ArgumentParser prints, not a log line before it.
    @discardableResult
    public static func bootstrap(label: String, defaultLevel: Logger.Level = .info,
                                 environment: EnvironmentReader = EnvironmentReader()) -> Logger {
        let level = environment.string("RECEIPTQ_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
        LoggingSystem.bootstrap { name in
            var handler = StreamLogHandler.standardError(label: name)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}
