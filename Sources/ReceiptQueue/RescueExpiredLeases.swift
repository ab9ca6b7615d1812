import Postgres

/// Puts jobs whose lease expired (their worker died, hung, or lost the database) back in the
/// queue, or ends them `failed` when their retry budget is spent (a job that kills every worker
/// that takes it must not circulate forever).
///
/// Guarded: rows are locked `FOR UPDATE SKIP LOCKED` and re-checked, so a job completed by its
/// worker at the same moment keeps its outcome. Served by `jobs_lease_idx` (partial,
/// state = 'verifying', on locked_until). Bounded: at most `limit` rows per statement.
public enum RescueExpiredLeases {
    static let sql = """
        WITH expired AS (
            SELECT id, locked_by,
                   (attempts >= $2 OR created_at + $3 * interval '1 millisecond' <= now()) AS give_up
            FROM receiptq.jobs
            WHERE state = 'verifying' AND locked_until < now()
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.jobs AS j
        SET state = CASE WHEN e.give_up THEN 'failed' ELSE 'queued' END,
            finished_at = CASE WHEN e.give_up THEN now() END,
            outcome_reason = CASE WHEN e.give_up
                THEN 'gave up: lease of attempt ' || j.attempts || ' expired (worker ' || e.locked_by || ')' END,
            run_at = now(),
            locked_by = NULL,
            locked_until = NULL,
            last_error = 'lease expired (worker ' || e.locked_by || ')',
            updated_at = now()
        FROM expired AS e
        WHERE j.id = e.id AND j.state = 'verifying'
        RETURNING j.id, j.state
        """

    /// Rescues at most `limit` jobs; returns (requeued, failed).
    public static func run(limit: Int, policy: RetryPolicy, on connection: PostgresConnection) throws -> (requeued: Int, failed: Int) {
        let rows = try connection.query(sql, [limit, policy.maxAttempts, policy.deadline.milliseconds])
        let failed = rows.filter { $0["state"] == JobState.failed.rawValue }.count
        return (rows.count - failed, failed)
    }
}

/// Puts `timed_out` jobs whose `run_at` has come back in the queue (Apple did not answer in
/// time; try again), or ends them `failed` past the retry budget. Guarded like
/// `RescueExpiredLeases`; served by `jobs_timed_out_idx`.
public enum RequeueTimedOut {
    static let sql = """
        WITH due AS (
            SELECT id, (attempts >= $2 OR created_at + $3 * interval '1 millisecond' <= now()) AS give_up
            FROM receiptq.jobs
            WHERE state = 'timed_out' AND run_at <= now()
            ORDER BY run_at
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.jobs AS j
        SET state = CASE WHEN d.give_up THEN 'failed' ELSE 'queued' END,
            finished_at = CASE WHEN d.give_up THEN now() END,
            outcome_reason = CASE WHEN d.give_up THEN 'gave up: Apple did not answer in time; ' || coalesce(j.last_error, '') END,
            run_at = now(),
            updated_at = now()
        FROM due AS d
        WHERE j.id = d.id AND j.state = 'timed_out'
        RETURNING j.id, j.state
        """

    public static func run(limit: Int, policy: RetryPolicy, on connection: PostgresConnection) throws -> (requeued: Int, failed: Int) {
        let rows = try connection.query(sql, [limit, policy.maxAttempts, policy.deadline.milliseconds])
        let failed = rows.filter { $0["state"] == JobState.failed.rawValue }.count
        return (rows.count - failed, failed)
    }
}

/// Deletes finished jobs older than the retention, oldest first, at most `limit` per statement.
/// Only terminal jobs are touched (a receipt not yet verified is never deleted), and the grants
/// ledger is a separate table that is never pruned. Served by `jobs_finished_idx`.
public enum PruneFinishedJobs {
    static let sql = """
        WITH old AS (
            SELECT id FROM receiptq.jobs
            WHERE state IN ('granted', 'already_granted', 'rejected', 'failed')
              AND finished_at < now() - $1 * interval '1 millisecond'
            ORDER BY finished_at
            LIMIT $2
        )
        DELETE FROM receiptq.jobs AS j
        USING old
        WHERE j.id = old.id AND j.state IN ('granted', 'already_granted', 'rejected', 'failed')
        """

    public static func run(retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.query(sql, [retention.milliseconds, limit]).affectedRows
    }
}
