/// An error from PostgreSQL or from libpq.
///
/// `description` is one terse line that is safe to show to users and logs (it never contains a
/// password or query parameters); `debugDescription` adds SQLSTATE, detail and hint.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection string could not be parsed.
        case invalidConfiguration
        /// Could not connect, or the connection broke (server restart, network). Safe to retry
        /// on a new connection; whether the statement ran is unknown if it broke mid-flight.
        case connection
        /// The server refused the statement; `sqlState` says why.
        case server
        /// A value in a result could not be read as the requested Swift type.
        case decoding
        /// The pool was shut down before the work could run.
        case poolClosed
    }

    public var kind: Kind
    /// Five-character SQLSTATE code (e.g. `23505` unique violation) when the server sent one.
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?

    public init(_ kind: Kind, _ message: String, sqlState: String? = nil, detail: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = PostgresError.oneLine(message)
        self.detail = detail
        self.hint = hint
    }

    /// A unique constraint refused the row (SQLSTATE 23505).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// The failure was about the connection rather than the statement: class 08
    /// (connection exception), 57P01–57P03 (server shutting down / not yet accepting), or a
    /// connection libpq reported as broken.
    public var isConnectionFailure: Bool {
        if kind == .connection { return true }
        guard let state = sqlState else { return false }
        return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    public var description: String { message }

    public var debugDescription: String {
        var parts = ["PostgresError(\(kind)"]
        if let sqlState { parts.append("sqlState: \(sqlState)") }
        parts.append("message: \(message)")
        if let detail { parts.append("detail: \(detail)") }
        if let hint { parts.append("hint: \(hint)") }
        return parts.joined(separator: ", ") + ")"
    }

    /// libpq messages span lines ("…failed: Connection refused\n\tIs the server running…");
    /// operators read them in one-line logs and CLI errors.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}

import Foundation
