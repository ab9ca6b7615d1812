import Postgres

/// `JobEvent.discard`: ops give up jobs that have not ended (spam, a test purchase, a job that
/// can never succeed) into `failed` at once — kept, re-drivable, never deleted. Guarded: only rows
/// still `queued` or `timed_out` move; a leased job is its worker's, a terminal one is left alone.
/// The caller appends their `job.failed` events in the same transaction
/// (`receiptq.append_failed_job_events`).
public enum DiscardJobs {
    static let sql = """
        UPDATE receiptq.jobs
        SET state = 'failed', finished_at = now(), updated_at = now(),
            outcome_reason = 'discarded by ops: ' || $2
        WHERE id = ANY($1::bigint[]) AND state IN ('queued', 'timed_out')              -- jobs_pkey
        RETURNING id
        """

    /// Discards the given jobs; returns the ids that moved.
    public static func run(ids: [Int64], reason: String, on connection: PostgresConnection) throws -> [Int64] {
        try connection.query(sql, [ids, reason]).map { try $0.decode("id") }
    }
}
