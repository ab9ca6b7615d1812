import Postgres

/// Inserts receipts in one statement (one round trip, one commit for the whole batch).
///
/// Dedupe: `receipt_submissions` holds one row per (sha256(receipt), transaction_id, user_id),
/// written before the job — the job's id is taken from the jobs sequence, the key inserted ON
/// CONFLICT DO NOTHING, and the job inserted only where its key went in, so a concurrent enqueue
/// of the same submission waits on the key and then finds it (migration 0033: the key used to be
/// a unique index on `jobs`, rewritten by every claim and verdict). The same
/// user's submission of the same receipt and transaction inserts nothing and gets that user's
/// job back (`created == false`), whatever else it claims (product, order): the purchase is
/// already in hand, and a client that corrected its claims must not lose it to a conflict. The
/// same bytes from another user are a submission of their own, with a verdict of their own (a
/// replay reads `owned_by_another_user`, never the first buyer's verdict). A new receipt for a
/// transaction whose earlier job ended `resubmit` (its receipt predated the purchase) supersedes
/// that job (`superseded_by`). The `jobs_notify_enqueued` trigger sends one NOTIFY receiptq_jobs
/// per statement.
/// Receipts only (`JobKind.receipt`); `EnqueueTransactions` takes the other kinds.
public enum EnqueueBatch {
    static let sql = """
        WITH input AS (
            SELECT i.*, receiptq.receipt_digest(i.receipt_data) AS digest, nextval('receiptq.jobs_id_seq') AS new_id
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::text[], $8::text[]) WITH ORDINALITY
                 AS i(receipt_data, transaction_id, user_id, product_id, order_id, app_account_token, request_id, trace_parent, ord)
        ), keyed AS (
            INSERT INTO receiptq.receipt_submissions (receipt_sha256, transaction_id, user_id, job_id)
            SELECT digest, transaction_id, user_id, new_id FROM input ORDER BY ord
            ON CONFLICT DO NOTHING
            RETURNING job_id
        ), inserted AS (
            INSERT INTO receiptq.jobs (id, receipt_data, transaction_id, user_id, product_id, order_id, app_account_token, request_id,
                                       trace_parent)
            OVERRIDING SYSTEM VALUE
            SELECT i.new_id, i.receipt_data, i.transaction_id, i.user_id, i.product_id, i.order_id, i.app_account_token, i.request_id,
                   i.trace_parent
            FROM input i JOIN keyed k ON k.job_id = i.new_id ORDER BY i.ord
            RETURNING id, transaction_id, user_id, state
        ), superseded AS (
            UPDATE receiptq.jobs AS o SET superseded_by = n.id, updated_at = now()
            FROM inserted n
            WHERE o.transaction_id = n.transaction_id AND o.state = 'resubmit'          -- jobs_resubmit_idx
              AND o.user_id = n.user_id AND o.superseded_by IS NULL
        )
        SELECT i.ord,
               coalesce(n.id, e.id) AS id,
               n.id IS NOT NULL AS created,
               coalesce(n.state, e.state) AS state,
               \(Verdict.sql(state: "coalesce(n.state, e.state)", id: "coalesce(n.id, e.id)", userID: "i.user_id", grant: "g")) AS verdict
        FROM input i
        LEFT JOIN inserted n ON n.id = i.new_id
        LEFT JOIN receiptq.receipt_submissions s ON s.receipt_sha256 = i.digest AND s.transaction_id = i.transaction_id
                                               AND s.user_id = i.user_id                               -- receipt_submissions_pkey
        LEFT JOIN receiptq.jobs e ON e.id = s.job_id                                                   -- jobs_pkey
        LEFT JOIN receiptq.grants g ON g.purchase_key = e.purchase_key                                 -- grants_pkey
        ORDER BY i.ord
        """

    /// A duplicate inserted by a concurrent transaction that committed after this statement's
    /// snapshot is invisible to the statement above; a second statement sees it.
    static let lookupSQL = """
        SELECT j.id, j.state, \(Verdict.sql(state: "j.state", id: "j.id", userID: "j.user_id", grant: "g")) AS verdict
        FROM receiptq.receipt_submissions s
        JOIN receiptq.jobs j ON j.id = s.job_id                                                        -- jobs_pkey
        LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key                                 -- grants_pkey
        WHERE s.receipt_sha256 = receiptq.receipt_digest($1) AND s.transaction_id = $2 AND s.user_id = $3   -- receipt_submissions_pkey
        """

    /// Enqueues `jobs`, returning one result per input in input order. Repeats inside the batch
    /// are stored once; the later ones report `created == false`.
    public static func run(_ jobs: [NewJob], on connection: PostgresConnection) throws -> [EnqueuedJob] {
        guard !jobs.isEmpty else { return [] }
        // Repeats inside the batch are sent once (`BatchDedupe`: linear whatever the receipts).
        let dedupe = BatchDedupe(jobs)
        var uniquePosition = [Int](repeating: 0, count: jobs.count)
        var unique: [NewJob] = []
        unique.reserveCapacity(jobs.count)
        for index in jobs.indices where !dedupe.isRepeat(index) {
            uniquePosition[index] = unique.count
            unique.append(jobs[index])
        }
        // Prepared: the API runs this statement for every group commit on the same connections.
        let rows = try connection.query(prepared: sql, [
            unique.map { $0.receiptData ?? "" }, unique.map(\.transactionID), unique.map(\.userID),
            unique.map(\.productID), unique.map(\.orderID), unique.map { $0.appAccountToken?.uuidString }, unique.map(\.requestID),
            unique.map(\.traceParent),
        ])
        var results: [EnqueuedJob] = []
        results.reserveCapacity(unique.count)
        for (row, job) in zip(rows, unique) {
            if let id = try row.decodeIfPresent("id", as: Int64.self) {
                results.append(EnqueuedJob(id: id, created: try row.decode("created"), state: try decodeState(row),
                                           verdict: try Verdict.decode(row)))
            } else {
                let existing = try connection.query(lookupSQL, [job.receiptData ?? "", job.transactionID, job.userID])
                guard let found = existing.first else {
                    throw PostgresError(.server, "job vanished while enqueueing (pruned concurrently?)")
                }
                results.append(EnqueuedJob(id: try found.decode("id"), created: false, state: try decodeState(found),
                                           verdict: try Verdict.decode(found)))
            }
        }
        return jobs.indices.map { index in
            var result = results[uniquePosition[dedupe.firstOccurrence[index]]]
            if dedupe.isRepeat(index) { result.created = false }
            return result
        }
    }

    static func decodeState(_ row: PostgresRow) throws -> JobState {
        guard let state = JobState(rawValue: try row.decode("state", as: String.self)) else {
            throw PostgresError(.decoding, "unknown job state")
        }
        return state
    }
}
