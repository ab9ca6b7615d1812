import Postgres

/// `JobEvent.redrive`: ops put `failed` jobs back in the queue once the cause is fixed (an
/// outage longer than the retry deadline, a wrong shared secret). Each gets a fresh budget:
/// `attempts` from zero and the deadline counted from now (`redriven_at`). Guarded: only rows
/// still `failed` move; an id that is not failed is left alone and not returned.
public enum RedriveFailedJobs {
    static let set = """
        SET state = 'queued', run_at = now(), attempts = 0, redriven_at = now(), bounded_answers = 0,
            finished_at = NULL, outcome_reason = NULL,
            last_error = 'failed: ' || coalesce(outcome_reason, '') || ' (re-driven)', updated_at = now()
        """
    static let byIDSQL = "UPDATE receiptq.jobs \(set) WHERE id = ANY($1::bigint[]) AND state = 'failed' RETURNING id  -- primary key"
    static let recentSQL = """
        UPDATE receiptq.jobs \(set)
        WHERE state IN ('rejected', 'failed') AND state = 'failed' AND finished_at > now() - $1 * interval '1 millisecond'  -- jobs_failed_idx
        RETURNING id
        """

    /// Re-drives the given failed jobs; returns the ids that moved.
    public static func run(ids: [Int64], on connection: PostgresConnection) throws -> [Int64] {
        try connection.query(byIDSQL, [ids]).map { try $0.decode("id") }
    }

    /// Re-drives every job that failed within `since`; returns the ids that moved.
    public static func run(failedWithin since: Duration, on connection: PostgresConnection) throws -> [Int64] {
        try connection.query(recentSQL, [since.milliseconds]).map { try $0.decode("id") }
    }
}
