import Postgres

/// `JobEvent.leaseExpired`: puts jobs whose lease expired (their worker died, hung, or lost the
/// database) back in the queue, or ends them `failed` when their retry budget is spent (a job
/// that kills every worker that takes it must not circulate forever).
///
/// Guarded: rows are locked `FOR UPDATE SKIP LOCKED` and re-checked, so a job completed by its
/// worker at the same moment keeps its outcome. Served by `jobs_lease_idx` (partial,
/// state = 'verifying', on locked_until). Bounded: at most `limit` rows per statement.
public enum RescueExpiredLeases {
    /// The leases `leases` selects (a WHERE condition on `receiptq.jobs`) end now, as `ended`
    /// says ("expired", "released by an operator"): one spelling of the event for the scheduler
    /// and for `receiptq release --worker`.
    static func statement(leases: String, ended: String) -> String {
        """
        WITH expired AS (
            SELECT id, locked_by, \(RetryBudget.sqlIsSpent(maxAttemptsParameter: 2, deadlineParameter: 3, table: "jobs")) AS give_up
            FROM receiptq.jobs
            WHERE \(leases)
            ORDER BY locked_until
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.jobs AS j
        SET state = CASE WHEN e.give_up THEN 'failed' ELSE 'queued' END,
            finished_at = CASE WHEN e.give_up THEN now() END,
            outcome_reason = CASE WHEN e.give_up
                THEN 'gave up: lease of attempt ' || j.attempts || ' \(ended) (worker ' || e.locked_by || ')' END,
            run_at = now(),
            locked_by = NULL,
            locked_until = NULL,
            last_error = 'lease \(ended) (worker ' || e.locked_by || ')',
            updated_at = now()
        FROM expired AS e
        WHERE j.id = e.id AND j.state = 'verifying'
        RETURNING j.id, j.state
        """
    }

    static let sql = statement(leases: "state = 'verifying' AND locked_until < now()", ended: "expired")          // jobs_lease_idx
    static let workerSQL = statement(leases: "state = 'verifying' AND locked_by = $4", ended: "released by an operator")  // jobs_lease_idx

    /// Rescues at most `limit` jobs; returns how many were requeued and the ids given up (whose
    /// events the caller appends in the same transaction).
    public static func run(limit: Int, budget: RetryBudget, on connection: PostgresConnection) throws -> (requeued: Int, failed: [Int64]) {
        try split(connection.query(sql, [limit, budget.maxAttempts, budget.deadline.milliseconds]))
    }

    /// `receiptq release --worker`: the leases `worker` holds expire now, whenever they would
    /// have (the worker is known dead). The same event as an expired lease: the attempt counts,
    /// and a job whose budget is spent ends `failed` — a job that kills its worker does not
    /// circulate past its budget however it is released.
    public static func run(worker: String, limit: Int, budget: RetryBudget,
                           on connection: PostgresConnection) throws -> (requeued: Int, failed: [Int64]) {
        try split(connection.query(workerSQL, [limit, budget.maxAttempts, budget.deadline.milliseconds, worker]))
    }

    private static func split(_ rows: PostgresRows) throws -> (requeued: Int, failed: [Int64]) {
        let failed = try rows.filter { $0["state"] == JobState.failed.rawValue }.map { try $0.decode("id", as: Int64.self) }
        return (rows.count - failed.count, failed)
    }
}
