import Postgres

/// Consumption requests whose 12-hour window closed unanswered end `expired` (Apple no longer
/// takes an answer, and ReceiptQueue never sends one late). Run by the scheduler's leader.
public enum ExpireConsumptionRequests {
    static let sql = """
        UPDATE receiptq.consumption_requests
        SET state = 'expired', last_error = coalesce(last_error, 'no answer before the deadline')
        WHERE notification_uuid IN (
            SELECT notification_uuid FROM receiptq.consumption_requests
            WHERE state = 'queued' AND deadline <= now()                                          -- consumption_requests_ready_idx
            LIMIT $1
            FOR UPDATE SKIP LOCKED)
        """

    public static func run(limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [limit]).affectedRows
    }
}
