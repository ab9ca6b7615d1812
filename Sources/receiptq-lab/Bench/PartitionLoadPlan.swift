/// The rows `bench partitions` loads: `rows` jobs over `days` whole days (UTC) ending yesterday,
/// in load order `i` = 0 ..< rows, day `d` holding `i` in `first(day:) ..< first(day:) + count(day:)`.
///
/// The mix: every day's jobs finished (80 % granted, 5 % already_granted, 8 % rejected, 3 %
/// resubmit, 2 % owned_elsewhere, 2 % failed) except the last `queued` rows, still queued, and the
/// `verifying` rows before them, leased — the live queue sits in the newest day. Kinds: half
/// receipts, 40 % signed transactions, 10 % transaction ids. Payloads are short stand-ins
/// (`bench-receipt-<i>`): real receipts and JWS are kilobytes kept out of line (STORAGE EXTERNAL),
/// which no statement measured here reads. A job is created within its day's first 86,300 s and
/// finished 0–9 s later, so a cutoff 30 s before midnight separates the days by `finished_at` too.
struct PartitionLoadPlan: Sendable {
    let rows: Int
    let days: Int
    let queued: Int
    let users: Int

    var verifying: Int { queued / 10 }
    var perDay: Int { rows / days }

    func first(day: Int) -> Int { day * perDay }
    func count(day: Int) -> Int { day == days - 1 ? rows - first(day: day) : perDay }

    /// Chunks of at most `size` rows, never across a day: (day, first row, last row inclusive).
    func chunks(size: Int) -> [(day: Int, first: Int, last: Int)] {
        (0..<days).flatMap { day in
            stride(from: first(day: day), to: first(day: day) + count(day: day), by: size).map { start in
                (day, start, min(start + size, first(day: day) + count(day: day)) - 1)
            }
        }
    }

    /// Terminal rows of `day`, by the states whose retention is longer than the settled ones'
    /// (`PruneFinishedJobs.Outcomes.rejected` and `.failed`): what a partition drop must keep.
    static let longRetentionStates = ["rejected", "owned_elsewhere", "failed"]

    /// Loads rows `$1 … $2` of the day starting at `$3` (its first row `$4`, `$5` rows), of `$6`
    /// rows in all with `$7` queued and `$8` verifying at the end, over `$9` users. Only the
    /// insertable columns: the generated digests and the identity come from the table.
    static let insertSQL = """
        INSERT INTO receiptq.jobs (receipt_data, signed_transaction, transaction_id, user_id, product_id, state, attempts,
                                   run_at, locked_by, locked_until, apple_environment, outcome_reason,
                                   created_at, updated_at, finished_at, kind, purchase_key)
        SELECT CASE WHEN k = 'receipt' THEN 'bench-receipt-' || i END,
               CASE WHEN k = 'signed_transaction' THEN 'eyJ.bench.' || i END,
               (2000000000000000 + i)::text, 'user-' || (i % $9::bigint), 'com.example.p' || (i % 5), s,
               CASE WHEN s = 'queued' THEN 0 ELSE 1 END,
               c,
               CASE WHEN s = 'verifying' THEN 'lab-worker-' || (i % 4) END,
               CASE WHEN s = 'verifying' THEN now() + interval '5 minutes' END,
               CASE WHEN f IS NOT NULL THEN 'Production' END,
               CASE WHEN s IN ('rejected', 'owned_elsewhere', 'failed') THEN 'bench: ' || s END,
               c, coalesce(f, c), f, k,
               CASE WHEN s IN ('granted', 'already_granted') THEN 'pk-' || i END
        FROM (SELECT i, c, k, s, CASE WHEN s NOT IN ('queued', 'verifying') THEN c + (i % 10) * interval '1 second' END AS f
              FROM (SELECT i,
                           $3::timestamptz + ((i - $4::bigint) * 86300.0 / $5::bigint) * interval '1 second' AS c,
                           CASE WHEN i % 10 < 5 THEN 'receipt' WHEN i % 10 < 9 THEN 'signed_transaction' ELSE 'transaction_id' END AS k,
                           CASE WHEN i >= $6::bigint - $7::bigint THEN 'queued'
                                WHEN i >= $6::bigint - $7::bigint - $8::bigint THEN 'verifying'
                                WHEN (i * 7919) % 1000 < 800 THEN 'granted'
                                WHEN (i * 7919) % 1000 < 850 THEN 'already_granted'
                                WHEN (i * 7919) % 1000 < 930 THEN 'rejected'
                                WHEN (i * 7919) % 1000 < 960 THEN 'resubmit'
                                WHEN (i * 7919) % 1000 < 980 THEN 'owned_elsewhere'
                                ELSE 'failed' END AS s
                    FROM generate_series($1::bigint, $2::bigint) AS i) AS a) AS g
        """
}
