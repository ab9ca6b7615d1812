import Foundation
import Logging
import Synchronization

/// Logs as one JSON object per line (`RECEIPTQ_LOG_FORMAT=json`), for collectors that parse
/// rather than grep: `{"ts":…,"level":…,"label":…,"message":…,"metadata":{…}}`, keys in that
/// order, every string escaped (quotes, backslashes, control characters), so no message or
/// metadata value can break a line or forge a field.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    /// Adds the task's context to each line (the trace id inside a span: `TraceLogMetadata`).
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: receives each line, newline included. Default: standard error.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = "{\"ts\":"
        Self.append(Self.timestamp(), to: &line)
        line += ",\"level\":"
        Self.append(event.level.rawValue, to: &line)
        line += ",\"label\":"
        Self.append(label, to: &line)
        line += ",\"message\":"
        Self.append(event.message.description, to: &line)
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { $1 } }
        merged.merge(event.metadata ?? [:]) { $1 }
        if !merged.isEmpty {
            line += ",\"metadata\":"
            Self.append(.dictionary(merged), to: &line)
        }
        line += "}\n"
        write(line)
    }

    /// One write per line: lines of concurrent tasks never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let lock = Mutex(())

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    private static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text): append(text, to: &line)
        case .stringConvertible(let convertible): append(convertible.description, to: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                append(element, to: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                append(key, to: &line)
                line += ":"
                append(values[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string literal (RFC 8259): `"`, `\` and every control character escaped.
    static func append(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                line += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
