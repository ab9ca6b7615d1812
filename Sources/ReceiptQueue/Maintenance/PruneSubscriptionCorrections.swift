import Postgres

/// Deletes subscription corrections older than the retention, oldest first: they are an audit of
/// what status checks and history syncs found notifications had left wrong (the subscription itself
/// is already corrected), summed for the last 24 h by `receiptq.reconciliation_health`. At most
/// `limit` rows a statement.
public enum PruneSubscriptionCorrections {
    static let sql = """
        DELETE FROM receiptq.subscription_corrections
        WHERE id IN (
            SELECT id FROM receiptq.subscription_corrections
            WHERE corrected_at < now() - $1 * interval '1 millisecond'                -- subscription_corrections_time_idx
            ORDER BY corrected_at
            LIMIT $2)
        """

    /// How many were deleted.
    public static func run(retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit]).affectedRows
    }
}
