import Postgres

/// Puts notifications whose lease expired (their worker died or hung) back in the queue, and
/// consumption requests likewise — or past their deadline, `expired` (Apple no longer wants the
/// answer). A notification that has worn out `maxAttempts` leases is held in `failed` for ops,
/// so one that kills every worker that takes it does not circulate forever. Guarded like
/// `RescueExpiredLeases`: locked `SKIP LOCKED` and re-checked; at most `limit` rows a statement.
public enum RescueNotificationLeases {
    /// The notification leases `leases` selects end now, as `ended` says.
    static func notificationsStatement(leases: String, ended: String) -> String {
        """
        WITH expired AS (
            SELECT notification_uuid, locked_by FROM receiptq.notifications
            WHERE \(leases)
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.notifications AS n
        SET state = CASE WHEN n.attempts >= $2 THEN 'failed' ELSE 'queued' END,
            outcome = CASE WHEN n.attempts >= $2 THEN 'gave up: ' || n.attempts || ' leases \(ended)' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease \(ended) (worker ' || e.locked_by || ')'
        FROM expired AS e
        WHERE n.notification_uuid = e.notification_uuid AND n.state = 'applying'
        RETURNING n.state
        """
    }

    /// The consumption request leases `leases` selects end now, as `ended` says.
    static func consumptionStatement(leases: String, ended: String) -> String {
        """
        WITH expired AS (
            SELECT notification_uuid, locked_by FROM receiptq.consumption_requests
            WHERE \(leases)
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.consumption_requests AS c
        SET state = CASE WHEN c.deadline <= now() THEN 'expired' ELSE 'queued' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease \(ended) (worker ' || e.locked_by || ')'
        FROM expired AS e
        WHERE c.notification_uuid = e.notification_uuid AND c.state = 'sending'
        RETURNING c.state
        """
    }

    static let notificationsSQL = notificationsStatement(leases: "state = 'applying' AND locked_until < now()", ended: "expired")  // notifications_lease_idx
    static let consumptionSQL = consumptionStatement(leases: "state = 'sending' AND locked_until < now()", ended: "expired")  // consumption_requests_lease_idx
    static let workerNotificationsSQL = notificationsStatement(leases: "state = 'applying' AND locked_by = $3", ended: "released by an operator")
    static let workerConsumptionSQL = consumptionStatement(leases: "state = 'sending' AND locked_by = $2", ended: "released by an operator")

    /// How many of each went back to the queue (or gave up).
    public static func run(limit: Int, maxAttempts: Int = NotificationLifecycle().maxExpiredLeases, on connection: PostgresConnection) throws -> Int {
        let notifications = try connection.query(notificationsSQL, [limit, maxAttempts]).count
        let requests = try connection.query(consumptionSQL, [limit]).count
        return notifications + requests
    }

    /// `receiptq release --worker`: the leases `worker` holds end now, as if they had expired.
    public static func run(worker: String, limit: Int, maxAttempts: Int = NotificationLifecycle().maxExpiredLeases,
                           on connection: PostgresConnection) throws -> (notifications: Int, consumptionRequests: Int) {
        (try connection.query(workerNotificationsSQL, [limit, maxAttempts, worker]).count,
         try connection.query(workerConsumptionSQL, [limit, worker]).count)
    }
}
