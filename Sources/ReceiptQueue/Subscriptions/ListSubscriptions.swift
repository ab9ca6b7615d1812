import Foundation
import Postgres

/// A user's subscriptions as the model knows them, newest period first: every state, expired and
/// revoked ones included (entitlements say what the user may use now; this says why).
public enum ListSubscriptions {
    /// A user has few subscriptions; the bound keeps a pathological ledger from an unbounded answer.
    public static let limit = 1000

    static let sql = """
        SELECT s.original_transaction_id, s.environment, s.model::text AS model, s.user_id, s.product_id, s.status,
               s.auto_renew_status, s.expires_date, s.grace_period_expires_date, s.signed_at
        FROM receiptq.subscriptions s
        WHERE s.user_id = $1                                                    -- subscriptions_user_idx
        ORDER BY s.expires_date DESC NULLS LAST, s.original_transaction_id
        LIMIT $2
        """

    public static func run(userID: String, on connection: PostgresConnection) throws -> [SubscriptionView] {
        try connection.query(sql, [userID, limit]).compactMap { row in
            try ApplySubscriptionFact.snapshot(of: row, originalTransactionID: try row.decode("original_transaction_id"),
                                               environment: try row.decode("environment"))
                .map(SubscriptionView.init)
        }
    }
}
