import Foundation
import Postgres

/// Claims the subscriptions most overdue for a status check: `reconcile_at` moves out by the lease,
/// so no other worker takes one while it is checked (and one whose worker died is due again when
/// the lease ends). `FOR UPDATE SKIP LOCKED`.
public enum ClaimDueSubscriptions {
    static let sql = """
        UPDATE receiptq.subscriptions AS s
        SET reconcile_at = date_trunc('milliseconds', now() + $2 * interval '1 millisecond')
        WHERE (s.original_transaction_id, s.environment) IN (
            SELECT original_transaction_id, environment FROM receiptq.subscriptions
            WHERE reconcile_at <= now()                                                           -- subscriptions_reconcile_idx
            ORDER BY reconcile_at
            LIMIT $1
            FOR UPDATE SKIP LOCKED)
        RETURNING s.original_transaction_id, s.environment, s.reconcile_at
        """

    public static func run(limit: Int, lease: Duration, on connection: PostgresConnection) throws -> [ReconciliationLease] {
        try connection.query(sql, [limit, lease.milliseconds]).map { row in
            ReconciliationLease(originalTransactionID: try row.decode("original_transaction_id"), environment: try row.decode("environment"),
                                leaseUntil: try row.decode("reconcile_at"))
        }
    }

    /// `receiptq reconcile`: due now (one subscription, or every one of a user).
    static let dueNowSQL = """
        UPDATE receiptq.subscriptions SET reconcile_at = now()
        WHERE ($1::text IS NULL OR original_transaction_id = $1) AND ($2::text IS NULL OR user_id = $2)
          AND ($1::text IS NOT NULL OR $2::text IS NOT NULL)
        """

    /// Makes the named subscriptions due now; returns how many.
    public static func dueNow(originalTransactionID: String?, userID: String?, on connection: PostgresConnection) throws -> Int {
        try connection.query(dueNowSQL, [originalTransactionID, userID]).affectedRows
    }
}
