import Postgres

/// Puts history syncs whose lease expired (their worker died or hung) back in the queue — they
/// resume from the revision of the last page recorded — or, past `maxAttempts` leases, into
/// `failed` for ops. Guarded like `RescueExpiredLeases`: locked `SKIP LOCKED` and re-checked; at
/// most `limit` rows a statement. With `worker` (`receiptq release --worker`), every lease that
/// worker holds ends now the same way, expired or not.
public enum RescueHistorySyncLeases {
    static let sql = """
        WITH expired AS (
            SELECT original_transaction_id, environment, locked_by FROM receiptq.history_syncs
            WHERE state = '\(HistorySyncState.syncing.rawValue)'                                  -- history_syncs_lease_idx
              AND (CASE WHEN $3::text IS NULL THEN locked_until < now() ELSE locked_by = $3 END)
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.history_syncs AS h
        SET state = CASE WHEN h.attempts >= $2 THEN '\(HistorySyncState.failed.rawValue)' ELSE '\(HistorySyncState.queued.rawValue)' END,
            run_at = now(), locked_by = NULL, locked_until = NULL,
            last_error = CASE WHEN $3::text IS NULL THEN 'lease expired (worker ' || e.locked_by || ')'
                              ELSE 'lease released by an operator (worker ' || e.locked_by || ')' END
        FROM expired AS e
        WHERE h.original_transaction_id = e.original_transaction_id AND h.environment = e.environment
          AND h.state = '\(HistorySyncState.syncing.rawValue)'
        RETURNING h.state
        """

    /// How many went back to the queue (or gave up).
    public static func run(limit: Int, maxAttempts: Int = HistorySyncLifecycle().maxAttempts, worker: String? = nil,
                           on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [limit, maxAttempts, worker]).count
    }
}
