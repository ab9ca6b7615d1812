import Postgres

/// Ends many attempts in one statement, fenced: each row moves to the state `JobLifecycle` chose
/// for it (`RecordOutcomes` decides; this only writes). Internal on purpose: the only way to end
/// a job is `RecordOutcomes`, so no job ends `granted` without its ledger row.
///
/// A row changes only while it is still `verifying`, leased by this worker, at the attempt the
/// completion names. The lease holder is the "still verifying" test: the `jobs_lease_check`
/// constraint makes one exist exactly while the state is `verifying`. It is compared with a
/// column of the batch (`o.worker`), a join clause, never a filter on `jobs` alone: the
/// planner estimates one worker's leased rows (or the verifying ones) from statistics that know
/// nothing of this batch — often a single row on a young table or in a sudden backlog — and then
/// scanned `jobs` for them and re-read the whole batch for every one it found: 1.0–1.4 s per
/// batch of 500–1,000 instead of milliseconds, one `bench queue` run in three or four draining at
/// ~1,100 jobs/s instead of ~8,000 (auto_explain, issue 30). Joined on the primary key, the batch's
/// size is the estimate. A completion whose lease was taken over (expired,
/// requeued by the scheduler, claimed again) matches nothing and comes back in `lostLease`: it
/// can never overwrite the newer attempt's outcome. Rows are found through the primary key; the
/// batch's ids are also named with `= ANY`, which the planner sizes by the array, so a jobs
/// table small enough to scan is filtered by id before it is hashed, not hashed whole (50,000
/// rows hashed for every batch of 1,000 in `bench queue`: 25–44 ms of a 75–145 ms write).
enum CompleteBatch {
    static let sql = """
        UPDATE receiptq.jobs AS j
        SET state = o.state,
            attempts = j.attempts - o.give_back,
            bounded_answers = j.bounded_answers + CASE WHEN o.bounded THEN 1 ELSE 0 END,
            run_at = CASE WHEN o.delay_ms IS NOT NULL THEN now() + o.delay_ms * interval '1 millisecond' ELSE j.run_at END,
            locked_by = NULL,
            locked_until = NULL,
            apple_status = coalesce(o.apple_status, j.apple_status),
            apple_environment = coalesce(o.apple_environment, j.apple_environment),
            last_error = CASE WHEN o.give_back = 1 THEN j.last_error ELSE o.error END,
            outcome_reason = o.reason,
            purchase_key = o.purchase_key,
            finished_at = CASE WHEN o.finished THEN now() END,
            updated_at = now()
        FROM unnest($2::bigint[], $3::int[], $4::text[], $5::bigint[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[],
                    $11::bool[], $12::bool[], $13::text[], array_fill($1::text, ARRAY[cardinality($2::bigint[])]))
             AS o(id, attempt, state, delay_ms, give_back, apple_status, apple_environment, reason, error, bounded, finished, purchase_key,
                  worker)
        WHERE j.id = ANY($2::bigint[])                                                   -- primary key
          AND j.id = o.id
          AND j.locked_by = o.worker
          AND j.attempts = o.attempt
        RETURNING j.id
        """

    /// One attempt's end, resolved to the row it writes.
    struct Completion: Sendable, Hashable {
        var id: Int64
        var attempt: Int
        var state: JobState
        /// Claimable again after this long (`queued`, `timed_out`); nil keeps `run_at`.
        var delayMilliseconds: Int64?
        /// Released unattempted: the claim's attempt is given back and `last_error` kept.
        var givesBackAttempt: Bool
        var appleStatus: Int?
        var appleEnvironment: String?
        /// Why the job ended (terminal states), else nil.
        var reason: String?
        /// Why the attempt did not end the job (retries), else nil.
        var error: String?
        /// See `FinishedAttempt.boundedAnswer`.
        var boundedAnswer: Bool
        /// The ledger row a granted or already-granted job found.
        var purchaseKey: String? = nil
    }

    struct Result: Sendable, Equatable {
        var completed: Set<Int64>
        var lostLease: Set<Int64>
    }

    static func run(_ completions: [Completion], worker: String, on connection: PostgresConnection) throws -> Result {
        guard !completions.isEmpty else { return Result(completed: [], lostLease: []) }
        let rows = try connection.query(sql, [
            worker, completions.map(\.id), completions.map(\.attempt), completions.map(\.state.rawValue),
            completions.map(\.delayMilliseconds), completions.map { $0.givesBackAttempt ? 1 : 0 },
            completions.map(\.appleStatus), completions.map(\.appleEnvironment), completions.map(\.reason),
            completions.map(\.error), completions.map(\.boundedAnswer), completions.map(\.state.isTerminal),
            completions.map(\.purchaseKey),
        ])
        let completed = Set(try rows.map { try $0.decode("id", as: Int64.self) })
        return Result(completed: completed, lostLease: Set(completions.map(\.id)).subtracting(completed))
    }
}
