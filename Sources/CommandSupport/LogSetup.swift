import Foundation
import Logging
import Telemetry

/// Logs go to stderr at `RECEIPTQ_LOG_LEVEL` (default `info`), one line each: readable text, or
/// with `RECEIPTQ_LOG_FORMAT=json` one JSON object per line (`JSONLogHandler`). Called once by
/// each subcommand. Receipt data, secrets and tokens are never passed to a logger.
public enum LogSetup {
    /// The formats `RECEIPTQ_LOG_FORMAT` takes.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    /// One-shot commands (migrate, stats, bench) pass `.error`: their failure is the one line
    /// ArgumentParser prints, not a log line before it.
    @discardableResult
    public static func bootstrap(label: String, defaultLevel: Logger.Level = .info,
                                 environment: EnvironmentReader = EnvironmentReader()) -> Logger {
        // Malformed values were refused before any command ran (`runWithExitStatus`).
        let level = (try? level(environment)) ?? defaultLevel
        let format = (try? format(environment)) ?? .text
        // Inside a span (tracing on), every line also carries its trace_id and span_id.
        LoggingSystem.bootstrap({ name, metadataProvider in
            var handler: any LogHandler = switch format {
            case .text: StreamLogHandler.standardError(label: name, metadataProvider: metadataProvider)
            case .json: JSONLogHandler(label: name, metadataProvider: metadataProvider)
            }
            handler.logLevel = level
            return handler
        }, metadataProvider: TraceLogMetadata.provider)
        return Logger(label: label)
    }

    /// `RECEIPTQ_LOG_LEVEL`: one of swift-log's levels (any case), or nil when unset (the
    /// command's default); anything else is a configuration error — a typo must not silently
    /// log at another level.
    public static func level(_ environment: EnvironmentReader) throws -> Logger.Level? {
        guard let text = environment.string("RECEIPTQ_LOG_LEVEL") else { return nil }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ConfigurationError("RECEIPTQ_LOG_LEVEL must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text.prefix(40))\"")
        }
        return level
    }

    /// `RECEIPTQ_LOG_FORMAT`: `text` (default) or `json`; anything else is a configuration error.
    public static func format(_ environment: EnvironmentReader) throws -> Format {
        guard let text = environment.string("RECEIPTQ_LOG_FORMAT") else { return .text }
        guard let format = Format(rawValue: text.lowercased()) else {
            throw ConfigurationError("RECEIPTQ_LOG_FORMAT must be text or json")
        }
        return format
    }
}
