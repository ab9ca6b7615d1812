import Foundation
import Postgres

/// Ends an attempt at a consumption request, fenced by its lease, in the state
/// `ConsumptionLifecycle` gives it: `sent`, `no_consent` (the customer did not consent: Apple is
/// never told anything), `failed` (Apple refused it, or a retry would come after the deadline),
/// or back to `queued` for a retry before the deadline.
public enum FinishConsumptionRequest {
    public enum Ending: Sendable, Hashable {
        case sent
        case noConsent
        case failed(String)
        case retry(after: Duration, error: String)
    }

    static let sql = """
        UPDATE receiptq.consumption_requests
        SET state = $4, sent_at = CASE WHEN $4 = '\(ConsumptionState.sent.rawValue)' THEN now() END, last_error = $5,
            run_at = now() + $6 * interval '1 millisecond', locked_by = NULL, locked_until = NULL
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3 AND state = '\(ConsumptionState.sending.rawValue)'
        """

    /// The state `ending` leads to, with the error it records and its delay.
    static func resolve(_ lease: ConsumptionLease, _ ending: Ending, lifecycle: ConsumptionLifecycle,
                        now: Date) -> (state: ConsumptionState, error: String?, delay: Int64) {
        let facts = ConsumptionLifecycle.Facts(deadline: lease.deadline)
        let (end, error, delay): (ConsumptionLifecycle.End, String?, Int64) = switch ending {
        case .sent: (.sent, nil, 0)
        case .noConsent: (.noConsent, "the customer did not consent to sharing consumption data", 0)
        case .failed(let reason): (.failed, String(reason.prefix(500)), 0)
        case .retry(let after, let reason): (.retry(at: now.addingTimeInterval(after.seconds)), String(reason.prefix(500)), after.milliseconds)
        }
        // `next` is total from `sending`.
        let state = lifecycle.next(.sending, on: .complete(end), facts: facts, now: now) ?? .failed
        if state == .failed, case .retry = end {
            return (.failed, String(((error ?? "") + "; no time left to retry").prefix(500)), 0)
        }
        return (state, error, delay)
    }

    /// Writes the attempt's end; returns the state written with its error, or nil when the lease
    /// was lost.
    @discardableResult
    public static func run(_ lease: ConsumptionLease, _ ending: Ending, worker: String,
                           lifecycle: ConsumptionLifecycle = ConsumptionLifecycle(), now: Date = Date(),
                           on connection: PostgresConnection) throws -> (state: ConsumptionState, error: String?)? {
        let (state, error, delay) = resolve(lease, ending, lifecycle: lifecycle, now: now)
        let written = try connection.query(sql, [lease.notificationUUID, lease.attempt, worker, state.rawValue, error, delay]).affectedRows == 1
        return written ? (state, error) : nil
    }
}
