import Foundation
import Postgres

/// Claims due history syncs, oldest due first. `FOR UPDATE SKIP LOCKED`: no two workers walk one
/// customer's history at once.
public enum ClaimHistorySyncs {
    static let sql = """
        UPDATE receiptq.history_syncs AS h
        SET state = '\(HistorySyncState.syncing.rawValue)', locked_by = $2, locked_until = now() + $3 * interval '1 millisecond',
            attempts = h.attempts + 1
        WHERE (h.original_transaction_id, h.environment) IN (
            SELECT original_transaction_id, environment FROM receiptq.history_syncs
            WHERE state = '\(HistorySyncState.queued.rawValue)' AND run_at <= now()                 -- history_syncs_ready_idx
            ORDER BY run_at
            LIMIT $1
            FOR UPDATE SKIP LOCKED)
        RETURNING h.original_transaction_id, h.environment, h.attempts, h.user_id, h.revision
        """

    public static func run(limit: Int, worker: String, lease: Duration, on connection: PostgresConnection) throws -> [HistorySyncLease] {
        try connection.query(sql, [limit, worker, lease.milliseconds]).map { row in
            HistorySyncLease(originalTransactionID: try row.decode("original_transaction_id"), environment: try row.decode("environment"),
                             attempt: try row.decode("attempts"), userID: try row.decodeIfPresent("user_id"),
                             revision: try row.decodeIfPresent("revision"))
        }
    }
}
