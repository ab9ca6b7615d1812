import Foundation
import Postgres

/// Ends an attempt at a notification that changed nothing in the ledger: a retry later (our
/// trouble), or `failed` (it cannot be applied as it is; kept for ops and re-drivable). Fenced by
/// the lease, like job completions; returns false when the lease was lost.
public enum FinishNotification {
    static let retrySQL = """
        UPDATE receiptq.notifications
        SET state = 'queued', run_at = now() + $4 * interval '1 millisecond', locked_by = NULL, locked_until = NULL, last_error = $5
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3
        """
    static let failSQL = """
        UPDATE receiptq.notifications
        SET state = 'failed', locked_by = NULL, locked_until = NULL, last_error = $4, outcome = $4
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3
        """

    public static func retry(_ lease: NotificationLease, worker: String, after delay: Duration, error: String,
                             on connection: PostgresConnection) throws -> Bool {
        try connection.query(retrySQL, [lease.uuid, lease.attempt, worker, delay.milliseconds, String(error.prefix(500))]).affectedRows == 1
    }

    public static func fail(_ lease: NotificationLease, worker: String, reason: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query(failSQL, [lease.uuid, lease.attempt, worker, String(reason.prefix(500))]).affectedRows == 1
    }
}
