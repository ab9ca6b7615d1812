import Postgres

/// Why a support operation was refused, in words an operator can act on; `kind` is what an
/// HTTP route answers (400, 404, 409, 502).
public struct SupportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// Bad input (400).
        case invalid
        /// No such customer, purchase, job or request (404).
        case notFound
        /// The thing exists but is in no state for it (409): revoked already, family-shared, taken.
        case conflict
        /// Apple refused or could not be asked (502).
        case apple
        /// The operation needs App Store Server API credentials this process was not given (503).
        case unavailable
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The refusals the support functions raise, by SQLSTATE; other errors are not support's to explain.
    public static func from(_ error: PostgresError) -> SupportError? {
        let message = error.message
        switch error.sqlState {
        case "22023": return SupportError(.invalid, message)
        case "P0002": return SupportError(.notFound, message)
        case "55000", "23505": return SupportError(.conflict, message)
        case "23514": return SupportError(.invalid, "refused by the database: \(message)")
        default: return nil
        }
    }
}
