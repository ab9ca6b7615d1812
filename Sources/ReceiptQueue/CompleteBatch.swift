import Postgres

/// Writes the outcomes of many attempts in one statement, fenced.
///
/// A row changes only while it is still `verifying`, leased by this worker, at the attempt the
/// completion names. `locked_by = $1` is the "still verifying" test: the `jobs_lease_check`
/// constraint makes a lease holder exist exactly while the state is `verifying`. Leaving
/// `state = 'verifying'` out is deliberate: it would let the planner drive the join from the
/// partial lease index, and when statistics underestimate the verifying jobs (a young table, a
/// sudden backlog) it re-scanned the whole batch for every leased job — 1.4 s per 500-row batch
/// in `bench e2e` instead of milliseconds. A completion whose lease was taken over (expired, requeued by the
/// scheduler, claimed again) matches nothing and comes back in `lostLease`: it can never
/// overwrite the newer attempt's outcome. Rows are found through the primary key.
public enum CompleteBatch {
    static let sql = """
        UPDATE receiptq.jobs AS j
        SET state = o.state,
            attempts = j.attempts - o.give_back,
            bounded_answers = j.bounded_answers + CASE WHEN o.bounded THEN 1 ELSE 0 END,
            run_at = CASE WHEN o.state IN ('queued', 'timed_out')
                          THEN now() + o.delay_ms * interval '1 millisecond' ELSE j.run_at END,
            locked_by = NULL,
            locked_until = NULL,
            apple_status = coalesce(o.apple_status, j.apple_status),
            apple_environment = coalesce(o.apple_environment, j.apple_environment),
            last_error = CASE WHEN o.give_back = 1 THEN j.last_error ELSE o.error END,
            outcome_reason = o.reason,
            finished_at = CASE WHEN o.state IN ('granted', 'already_granted', 'rejected', 'failed') THEN now() END,
            updated_at = now()
        FROM unnest($2::bigint[], $3::int[], $4::text[], $5::bigint[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[],
                    $11::bool[])
             AS o(id, attempt, state, delay_ms, give_back, apple_status, apple_environment, reason, error, bounded)
        WHERE j.id = o.id
          AND j.locked_by = $1
          AND j.attempts = o.attempt
        RETURNING j.id
        """

    public struct Result: Sendable, Equatable {
        /// Completions written.
        public var completed: Set<Int64>
        /// Completions refused by the fence: the job is no longer this lease's.
        public var lostLease: Set<Int64>
    }

    /// Applies `completions` made by `worker`. Run inside a transaction when other writes (the
    /// grants) must commit or fail together with them.
    public static func run(_ completions: [JobCompletion], worker: String, on connection: PostgresConnection) throws -> Result {
        guard !completions.isEmpty else { return Result(completed: [], lostLease: []) }
        var ids: [Int64] = [], attempts: [Int] = [], states: [String] = [], delays: [Int64] = []
        var giveBacks: [Int] = [], statuses: [Int?] = [], environments: [String?] = []
        var reasons: [String?] = [], errors: [String?] = []
        for completion in completions {
            ids.append(completion.id)
            attempts.append(completion.attempt)
            states.append(completion.outcome.state.rawValue)
            statuses.append(completion.appleStatus)
            environments.append(completion.appleEnvironment)
            var delay: Int64 = 0, giveBack = 0
            var reason: String?, error: String?
            switch completion.outcome {
            case .granted, .alreadyGranted: break
            case .rejected(let why), .failed(let why): reason = why
            case .retry(let ms, let why), .timedOut(let ms, let why): delay = ms; error = why
            case .release: giveBack = 1
            }
            delays.append(delay)
            giveBacks.append(giveBack)
            reasons.append(reason)
            errors.append(error)
        }
        let rows = try connection.query(sql, [worker, ids, attempts, states, delays, giveBacks, statuses, environments, reasons, errors,
                                              completions.map(\.boundedAnswer)])
        let completed = Set(try rows.map { try $0.decode("id", as: Int64.self) })
        return Result(completed: completed, lostLease: Set(ids).subtracting(completed))
    }
}
