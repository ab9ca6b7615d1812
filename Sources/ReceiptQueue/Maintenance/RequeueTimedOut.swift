import Postgres

/// `JobEvent.timedOutDue`: puts `timed_out` jobs whose `run_at` has come back in the queue (Apple
/// did not answer in time; try again), or ends them `failed` once the retry budget is spent.
/// Guarded like `RescueExpiredLeases`; served by `jobs_timed_out_idx`.
public enum RequeueTimedOut {
    static let sql = """
        WITH due AS (
            SELECT id, \(RetryBudget.sqlIsSpent(maxAttemptsParameter: 2, deadlineParameter: 3, table: "jobs")) AS give_up
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

    /// Requeues at most `limit` jobs; returns how many were requeued and the ids given up (whose
    /// events the caller appends in the same transaction).
    public static func run(limit: Int, budget: RetryBudget, on connection: PostgresConnection) throws -> (requeued: Int, failed: [Int64]) {
        let rows = try connection.query(sql, [limit, budget.maxAttempts, budget.deadline.milliseconds])
        let failed = try rows.filter { $0["state"] == JobState.failed.rawValue }.map { try $0.decode("id", as: Int64.self) }
        return (rows.count - failed.count, failed)
    }
}
