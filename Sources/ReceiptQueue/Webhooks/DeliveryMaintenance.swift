import Postgres

/// Puts webhook deliveries whose lease expired (their deliverer died) back in the queue, or gives
/// them up once their retry deadline has passed. Guarded and bounded like `RescueExpiredLeases`;
/// served by `deliveries_lease_idx`.
public enum RescueExpiredDeliveries {
    /// The delivery leases `leases` selects end now, as `ended` says.
    static func statement(leases: String, ended: String) -> String {
        """
        WITH expired AS (
            SELECT endpoint_id, event_sequence, locked_by, budget_from + $2 * interval '1 millisecond' <= now() AS give_up
            FROM receiptq.deliveries
            WHERE \(leases)
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.deliveries AS d
        SET state = CASE WHEN e.give_up THEN 'failed' ELSE 'queued' END, run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease \(ended) (deliverer ' || e.locked_by || ')'
        FROM expired e
        WHERE d.endpoint_id = e.endpoint_id AND d.event_sequence = e.event_sequence AND d.state = 'delivering'
        """
    }

    static let sql = statement(leases: "state = 'delivering' AND locked_until < now()", ended: "expired")                 // deliveries_lease_idx
    static let workerSQL = statement(leases: "state = 'delivering' AND locked_by = $3", ended: "released by an operator")  // deliveries_lease_idx

    public static func run(limit: Int, deadline: Duration, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [limit, deadline.milliseconds]).affectedRows
    }

    /// `receiptq release --worker`: the deliveries `worker` holds end now, as if their leases had expired.
    public static func run(worker: String, limit: Int, deadline: Duration, on connection: PostgresConnection) throws -> Int {
        try connection.query(workerSQL, [limit, deadline.milliseconds, worker]).affectedRows
    }
}

/// Ops put failed deliveries back in the queue (the receiver is fixed), with a fresh deadline.
/// With no endpoint, every endpoint's.
public enum RedriveFailedDeliveries {
    static let sql = """
        UPDATE receiptq.deliveries
        SET state = 'queued', run_at = now(), attempts = 0, budget_from = now(), last_error = 'failed: ' || coalesce(last_error, '') || ' (re-driven)'
        WHERE state = 'failed' AND ($1::text IS NULL OR endpoint_id = $1)          -- deliveries_failed_idx
        """

    public static func run(endpoint: String?, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [endpoint]).affectedRows
    }
}

/// Deletes events older than the retention whose deliveries are all finished (their deliveries
/// go with them), oldest first, at most `limit`. The feed and a backend's replay reach back this
/// far. Served by `events_created_idx`.
public enum PruneEvents {
    static let sql = """
        DELETE FROM receiptq.events
        WHERE sequence IN (
            SELECT e.sequence FROM receiptq.events e
            WHERE e.created_at < now() - $1 * interval '1 millisecond'              -- events_created_idx
              AND NOT EXISTS (SELECT 1 FROM receiptq.deliveries d
                              WHERE d.event_sequence = e.sequence AND d.state IN ('queued', 'delivering'))
            ORDER BY e.created_at
            LIMIT $2)
        """

    public static func run(retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit]).affectedRows
    }
}
