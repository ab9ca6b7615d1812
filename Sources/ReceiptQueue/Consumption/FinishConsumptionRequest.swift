import Foundation
import Postgres

/// Ends an attempt at a consumption request, fenced by its lease: `sent`, `no_consent` (the
/// customer did not consent: Apple is never told anything), `failed` (Apple refused it), or back
/// to `queued` for a retry before the deadline.
public enum FinishConsumptionRequest {
    public enum Ending: Sendable, Hashable {
        case sent
        case noConsent
        case failed(String)
        case retry(after: Duration, error: String)
    }

    static let sql = """
        UPDATE receiptq.consumption_requests
        SET state = $4, sent_at = CASE WHEN $4 = 'sent' THEN now() END, last_error = $5,
            run_at = now() + $6 * interval '1 millisecond', locked_by = NULL, locked_until = NULL
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3 AND state = 'sending'
        """

    @discardableResult
    public static func run(_ lease: ConsumptionLease, _ ending: Ending, worker: String, on connection: PostgresConnection) throws -> Bool {
        let (state, error, delay): (String, String?, Int64) = switch ending {
        case .sent: ("sent", nil, 0)
        case .noConsent: ("no_consent", "the customer did not consent to sharing consumption data", 0)
        case .failed(let reason): ("failed", String(reason.prefix(500)), 0)
        case .retry(let after, let reason): ("queued", String(reason.prefix(500)), after.milliseconds)
        }
        return try connection.query(sql, [lease.notificationUUID, lease.attempt, worker, state, error, delay]).affectedRows == 1
    }
}
