import Foundation
import Postgres

/// Claims up to `limit` ready jobs in one statement and commits the lease: no transaction stays
/// open while Apple is asked (invariant 3).
///
/// `FOR UPDATE SKIP LOCKED` lets any number of workers claim at once without waiting on each
/// other or taking the same row; the partial index `jobs_ready_kind_idx` (state = 'queued', by
/// kind, run_at, id) holds only the queue, so the scan stays short however many finished jobs the
/// table has, and a claim of one kind never walks past jobs of another. Jobs tried before (a
/// retry, a timed-out or rescued lease) go first, by `jobs_retry_ready_idx`: a retry is due
/// `run_at` after its answer, behind every job already waiting, and in a backlog it would wait for
/// all of them (migration 0031). Each claim increments
/// `attempts`, which becomes the lease's fencing token. While ops have paused the fleet
/// (`receiptq.fleet_control`, `PauseFleet`) it claims nothing; leases already held finish.
public enum ClaimBatch {
    public static let sql = """
        WITH retries AS (
            SELECT id FROM receiptq.jobs
            WHERE state = 'queued' AND kind = $4 AND attempts > 0 AND run_at <= now()   -- jobs_retry_ready_idx
              AND NOT (SELECT paused FROM receiptq.fleet_control)                  -- one row: the fleet's pause switch
            ORDER BY run_at, id
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        ), fresh AS (
            SELECT id FROM receiptq.jobs
            WHERE state = 'queued' AND kind = $4 AND attempts = 0 AND run_at <= now()   -- jobs_ready_kind_idx
              AND NOT (SELECT paused FROM receiptq.fleet_control)
            ORDER BY run_at, id
            LIMIT greatest(0, $1 - (SELECT count(*) FROM retries))
            FOR UPDATE SKIP LOCKED
        ), ready AS (
            SELECT id FROM retries UNION ALL SELECT id FROM fresh
        )
        UPDATE receiptq.jobs AS j
        SET state = 'verifying',
            locked_by = $2,
            locked_until = now() + $3 * interval '1 millisecond',
            attempts = j.attempts + 1,
            updated_at = now()
        WHERE j.id = ANY (ARRAY(SELECT id FROM ready))   -- by jobs_pkey: a join on the UNION's estimate hashed the whole table
        RETURNING j.id, j.kind, j.attempts, coalesce(j.receipt_data, '') AS receipt_data, j.signed_transaction,
                  j.app_account_token::text AS app_account_token, j.transaction_id, j.user_id, j.product_id, j.order_id,
                  j.created_at, coalesce(j.redriven_at, j.created_at) AS budget_start, j.locked_until, j.bounded_answers,
                  j.trusted_claim, j.request_id, j.apple_environment
        """

    /// Claims at most `limit` jobs of `kind` for `worker`, leased for `lease`.
    public static func run(limit: Int, kind: JobKind = .receipt, worker: String, lease: Duration,
                           on connection: PostgresConnection) throws -> [JobLease] {
        guard limit > 0 else { return [] }
        return try connection.query(sql, [limit, worker, lease.milliseconds, kind.rawValue]).map { row in
            JobLease(id: try row.decode("id"), kind: try row.decode("kind"), attempt: try row.decode("attempts"),
                     receiptData: try row.decode("receipt_data"), signedTransaction: try row.decodeIfPresent("signed_transaction"),
                     appAccountToken: try row.decodeIfPresent("app_account_token"), transactionID: try row.decode("transaction_id"),
                     userID: try row.decode("user_id"), productID: try row.decodeIfPresent("product_id"),
                     orderID: try row.decodeIfPresent("order_id"), createdAt: try row.decode("created_at"),
                     budgetStart: try row.decode("budget_start"),
                     lockedUntil: try row.decode("locked_until"), boundedAnswers: try row.decode("bounded_answers"),
                     trustedClaim: try row.decode("trusted_claim"), requestID: try row.decodeIfPresent("request_id"),
                     appleEnvironment: try row.decodeIfPresent("apple_environment"))
        }
    }
}
