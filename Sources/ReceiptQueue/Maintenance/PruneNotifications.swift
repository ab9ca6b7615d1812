import Postgres

/// Deletes applied notifications older than the retention (their effect is in the ledger and its
/// events; the signed payloads are kept that long for audit) and consumption requests that ended.
/// Failed notifications stay until ops re-drive or delete them. At most `limit` rows a statement.
public enum PruneNotifications {
    static let sql = """
        WITH old AS (
            SELECT notification_uuid FROM receiptq.notifications
            WHERE state = 'applied' AND received_at < now() - $1 * interval '1 millisecond'          -- notifications_received_idx
            LIMIT $2
        ), gone AS (
            DELETE FROM receiptq.notifications n USING old WHERE n.notification_uuid = old.notification_uuid
            RETURNING n.notification_uuid
        ), requests AS (
            DELETE FROM receiptq.consumption_requests c USING gone
            WHERE c.notification_uuid = gone.notification_uuid AND c.state IN ('sent', 'no_consent', 'expired', 'failed')
        )
        SELECT count(*) AS count FROM gone
        """

    public static func run(retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit])[0].decode("count")
    }
}
