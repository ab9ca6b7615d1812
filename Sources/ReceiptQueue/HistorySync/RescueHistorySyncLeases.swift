import Postgres

/// Puts history syncs whose lease expired (their worker died or hung) back in the queue — they
/// resume from the revision of the last page recorded — or, past `maxAttempts` leases, into
/// `failed` for ops. Guarded like `RescueExpiredLeases`: locked `SKIP LOCKED` and re-checked; at
/// most `limit` rows a statement.
public enum RescueHistorySyncLeases {
    static let sql = """
        WITH expired AS (
            SELECT original_transaction_id, environment, locked_by FROM receiptq.history_syncs
            WHERE state = '\(HistorySyncState.syncing.rawValue)' AND locked_until < now()          -- history_syncs_lease_idx
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.history_syncs AS h
        SET state = CASE WHEN h.attempts >= $2 THEN '\(HistorySyncState.failed.rawValue)' ELSE '\(HistorySyncState.queued.rawValue)' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = 'lease expired (worker ' || e.locked_by || ')'
        FROM expired AS e
        WHERE h.original_transaction_id = e.original_transaction_id AND h.environment = e.environment
          AND h.state = '\(HistorySyncState.syncing.rawValue)'
        RETURNING h.state
        """

    /// How many went back to the queue (or gave up).
    public static func run(limit: Int, maxAttempts: Int = HistorySyncLifecycle().maxAttempts, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [limit, maxAttempts]).count
    }
}
