import Foundation
import Postgres

/// Claims the subscriptions most overdue for a status check: `reconcile_at` moves out by the lease,
/// so no other worker takes one while it is checked (and one whose worker died is due again when
/// the lease ends). `FOR UPDATE SKIP LOCKED`.
public enum ClaimDueSubscriptions {
    /// One subscription per user at a time: Apple's answer for one checks the user's others
    /// (`RecordReconciliation`), so claiming two of a customer at once would ask Apple twice for
    /// the same answer. A sibling stays due while one of the user's subscriptions is held (claimed:
    /// due within a claim's lease) and is usually checked by that answer.
    static let sql = """
        UPDATE receiptq.subscriptions AS s
        SET reconcile_at = date_trunc('milliseconds', now() + $2 * interval '1 millisecond')
        WHERE (s.original_transaction_id, s.environment) IN (
            SELECT original_transaction_id, environment FROM (
                SELECT DISTINCT ON (coalesce(due.user_id, due.original_transaction_id), due.environment)
                       due.original_transaction_id, due.environment, due.reconcile_at
                FROM (SELECT original_transaction_id, environment, user_id, reconcile_at FROM receiptq.subscriptions
                      WHERE reconcile_at <= now()                                                 -- subscriptions_reconcile_idx
                        AND NOT EXISTS (SELECT 1 FROM receiptq.subscriptions AS held                  -- subscriptions_user_idx
                                        WHERE held.user_id = subscriptions.user_id AND held.environment = subscriptions.environment
                                          AND held.reconcile_at > now() AND held.reconcile_at <= now() + $2 * interval '1 millisecond')
                      ORDER BY reconcile_at
                      LIMIT $1 * 4
                      FOR UPDATE SKIP LOCKED) AS due
                ORDER BY coalesce(due.user_id, due.original_transaction_id), due.environment, due.reconcile_at) AS one
            ORDER BY one.reconcile_at
            LIMIT $1)
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
