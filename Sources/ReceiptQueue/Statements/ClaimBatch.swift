import Foundation
import Postgres

/// Claims up to `limit` ready jobs and commits the lease: no transaction stays open while Apple
/// is asked (invariant 3).
///
/// `FOR UPDATE SKIP LOCKED` lets any number of workers claim at once without waiting on each
/// other or taking the same row; the partial index `jobs_ready_kind_idx` (state = 'queued', by
/// kind, run_at, id) holds only the queue, so the scan stays short however many finished jobs the
/// table has, and a claim of one kind never walks past jobs of another. Each claim increments
/// `attempts`, which becomes the lease's fencing token. While ops have paused the fleet
/// (`receiptq.fleet_control`, `PauseFleet`) it claims nothing; leases already held finish.
///
/// Jobs tried before (a retry, a timed-out or rescued lease) go first: a retry is due `run_at`
/// after its answer, behind every job already waiting, and in a backlog it waited for all of them
/// (the last verdicts of a degraded-Apple run were all retries, ~30 s after the rest). So a claim
/// is two statements of one shape, each its own commit: the due retries by their own partial
/// index `jobs_retry_ready_idx` (migration 0031; empty while Apple is healthy, so the first
/// statement costs a round trip and an empty index probe), then the rest up to `limit`. One
/// statement with both scans in a UNION drained `bench queue` at 1,400–1,500 jobs/s in 2 runs of 9
/// (6,600–9,400 otherwise, and in 4 of 4 with the single scan): not worth a plan we cannot pin.
public enum ClaimBatch {
    /// Any ready job, oldest due first: what the second statement claims, and the claim before
    /// retries went first.
    public static let sql = statement(readyWhere: "state = 'queued' AND kind = $4 AND run_at <= now()", index: "jobs_ready_kind_idx")

    /// Ready jobs tried before, oldest due first.
    static let retriesSQL = statement(readyWhere: "state = 'queued' AND kind = $4 AND attempts > 0 AND run_at <= now()",
                                      index: "jobs_retry_ready_idx")

    private static func statement(readyWhere condition: String, index: String) -> String {
        """
        WITH ready AS (
            SELECT id FROM receiptq.jobs
            WHERE \(condition)              -- \(index)
              AND NOT (SELECT paused FROM receiptq.fleet_control)                  -- one row: the fleet's pause switch
            ORDER BY run_at, id
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.jobs AS j
        SET state = 'verifying',
            locked_by = $2,
            locked_until = now() + $3 * interval '1 millisecond',
            attempts = j.attempts + 1,
            updated_at = now()
        FROM ready
        WHERE j.id = ready.id
        RETURNING j.id, j.kind, j.attempts, coalesce(j.receipt_data, '') AS receipt_data, j.signed_transaction,
                  j.app_account_token::text AS app_account_token, j.transaction_id, j.user_id, j.product_id, j.order_id,
                  j.created_at, coalesce(j.redriven_at, j.created_at) AS budget_start, j.locked_until, j.bounded_answers,
                  j.trusted_claim, j.request_id, j.apple_environment, j.trace_parent
        """
    }

    /// Claims at most `limit` jobs of `kind` for `worker`, leased for `lease`: due retries first.
    public static func run(limit: Int, kind: JobKind = .receipt, worker: String, lease: Duration,
                           on connection: PostgresConnection) throws -> [JobLease] {
        guard limit > 0 else { return [] }
        let retries = try claim(retriesSQL, limit: limit, kind: kind, worker: worker, lease: lease, on: connection)
        guard retries.count < limit else { return retries }
        return retries + (try claim(sql, limit: limit - retries.count, kind: kind, worker: worker, lease: lease, on: connection))
    }

    private static func claim(_ statement: String, limit: Int, kind: JobKind, worker: String, lease: Duration,
                              on connection: PostgresConnection) throws -> [JobLease] {
        try connection.query(statement, [limit, worker, lease.milliseconds, kind.rawValue]).map { row in
            JobLease(id: try row.decode("id"), kind: try row.decode("kind"), attempt: try row.decode("attempts"),
                     receiptData: try row.decode("receipt_data"), signedTransaction: try row.decodeIfPresent("signed_transaction"),
                     appAccountToken: try row.decodeIfPresent("app_account_token"), transactionID: try row.decode("transaction_id"),
                     userID: try row.decode("user_id"), productID: try row.decodeIfPresent("product_id"),
                     orderID: try row.decodeIfPresent("order_id"), createdAt: try row.decode("created_at"),
                     budgetStart: try row.decode("budget_start"),
                     lockedUntil: try row.decode("locked_until"), boundedAnswers: try row.decode("bounded_answers"),
                     trustedClaim: try row.decode("trusted_claim"), requestID: try row.decodeIfPresent("request_id"),
                     appleEnvironment: try row.decodeIfPresent("apple_environment"),
                     traceParent: try row.decodeIfPresent("trace_parent"))
        }
    }
}
