import Postgres

/// Puts notifications whose lease expired (their worker died or hung) back in the queue, and
/// consumption requests likewise — or past their deadline, `expired` (Apple no longer wants the
/// answer). A notification that has worn out `maxAttempts` leases is held in `failed` for ops,
/// so one that kills every worker that takes it does not circulate forever. Guarded like
/// `RescueExpiredLeases`: locked `SKIP LOCKED` and re-checked; at most `limit` rows a statement.
public enum RescueNotificationLeases {
    static let notificationsSQL = """
        WITH expired AS (
            SELECT notification_uuid, locked_by FROM receiptq.notifications
            WHERE state = 'applying' AND locked_until < now()                                       -- notifications_lease_idx
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.notifications AS n
        SET state = CASE WHEN n.attempts >= $2 THEN 'failed' ELSE 'queued' END,
            outcome = CASE WHEN n.attempts >= $2 THEN 'gave up: ' || n.attempts || ' leases expired' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease expired (worker ' || e.locked_by || ')'
        FROM expired AS e
        WHERE n.notification_uuid = e.notification_uuid AND n.state = 'applying'
        RETURNING n.state
        """
    static let consumptionSQL = """
        WITH expired AS (
            SELECT notification_uuid, locked_by FROM receiptq.consumption_requests
            WHERE state = 'sending' AND locked_until < now()                                         -- consumption_requests_lease_idx
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.consumption_requests AS c
        SET state = CASE WHEN c.deadline <= now() THEN 'expired' ELSE 'queued' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease expired (worker ' || e.locked_by || ')'
        FROM expired AS e
        WHERE c.notification_uuid = e.notification_uuid AND c.state = 'sending'
        RETURNING c.state
        """

    /// How many of each went back to the queue (or gave up).
    public static func run(limit: Int, maxAttempts: Int = 50, on connection: PostgresConnection) throws -> Int {
        let notifications = try connection.query(notificationsSQL, [limit, maxAttempts]).count
        let requests = try connection.query(consumptionSQL, [limit]).count
        return notifications + requests
    }
}
