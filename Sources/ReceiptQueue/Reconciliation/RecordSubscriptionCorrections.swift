import Postgres

/// Keeps one row per fact that corrected a subscription (a status check or a history sync found
/// what notifications had left wrong or missing), in the caller's transaction:
/// `receiptq.subscription_corrections`, summed by `receiptq.reconciliation_health`.
public enum RecordSubscriptionCorrections {
    static let sql = """
        INSERT INTO receiptq.subscription_corrections (original_transaction_id, environment, source, fields, state_before, state_after)
        VALUES ($1, $2, $3, $4::text[], $5, $6)
        """
    static let stateSQL = """
        SELECT state FROM receiptq.subscriptions WHERE original_transaction_id = $1 AND environment = $2   -- subscriptions_pkey
        """

    public static func run(originalTransactionID: String, environment: String, source: String, fields: [String], stateBefore: String?,
                           stateAfter: String?, on connection: PostgresConnection) throws {
        guard !fields.isEmpty else { return }
        try connection.query(sql, [originalTransactionID, environment, source, fields, stateBefore, stateAfter])
    }
}
