import Postgres

/// Deletes finished jobs older than the retention, oldest first, at most `limit` per statement.
/// Only terminal jobs are touched (a receipt not yet verified is never deleted), and the grants
/// ledger is a separate table that is never pruned. Served by `jobs_finished_idx`, whose
/// predicate is the terminal states' list spelled by `JobState.terminalSQL`.
public enum PruneFinishedJobs {
    static let sql = """
        WITH old AS (
            SELECT id FROM receiptq.jobs
            WHERE state IN \(JobState.terminalSQL)
              AND finished_at < now() - $1 * interval '1 millisecond'
            ORDER BY finished_at
            LIMIT $2
        )
        DELETE FROM receiptq.jobs AS j
        USING old
        WHERE j.id = old.id AND j.state IN \(JobState.terminalSQL)
        """

    public static func run(retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit]).affectedRows
    }
}
