import Foundation
import Postgres

/// One worker telling the others that Apple just failed a run of its requests in one
/// environment, so their circuit breakers open before they find out with a claim batch of their
/// own. Sent on the NOTIFY channel `receiptq_apple_outage` when a closed breaker opens, never
/// for a failed probe: a fleet hears of an outage once, not once per probe.
///
/// Best effort by design: a notice lost while the database is away only means each worker finds
/// the outage out for itself, as it would alone. Backends may LISTEN on the channel too; the
/// payload is JSON `{"environment": "Production", "worker": "host-123"}`.
public struct OutageNotice: Sendable, Equatable, Codable {
    public static let channel = "receiptq_apple_outage"

    /// Apple's environment as `VerifyReceiptEnvironment.rawValue` ("Production", "Sandbox").
    public var environment: String
    /// The worker whose breaker opened (`locked_by` naming); a worker ignores its own notices.
    public var worker: String

    public init(environment: String, worker: String) {
        self.environment = environment
        self.worker = worker
    }

    /// Parameterised: the payload is data, never SQL. No table is touched.
    static let sql = "SELECT pg_notify('\(channel)', $1)"

    public var payload: String {
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }

    /// nil for a payload that is not a notice (another sender on the channel): ignored.
    public init?(payload: String) {
        guard let notice = try? JSONDecoder().decode(Self.self, from: Data(payload.utf8)) else { return nil }
        self = notice
    }

    public func send(on connection: PostgresConnection) throws {
        _ = try connection.query(Self.sql, [payload])
    }
}
