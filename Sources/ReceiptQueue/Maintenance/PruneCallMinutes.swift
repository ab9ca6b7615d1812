import Postgres

/// Deletes `receiptq.call_minutes` rows past seven days (the console charts a day at most; the rest
/// is for `psql`), oldest first, at most `limit` a statement. Run by the scheduler's leader.
public enum PruneCallMinutes {
    /// How long rows are kept.
    public static let retention: Duration = .seconds(7 * 86_400)

    static let sql = """
        DELETE FROM receiptq.call_minutes
        WHERE (minute, target, process) IN (
            SELECT minute, target, process FROM receiptq.call_minutes
            WHERE minute < now() - $1 * interval '1 millisecond'                             -- call_minutes_pkey
            ORDER BY minute
            LIMIT $2)
        """

    /// How many were deleted.
    public static func run(limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit]).affectedRows
    }
}
