import Foundation
import Postgres

/// Inserts StoreKit 2 signed transactions and transaction ids in one statement (one commit for
/// the whole batch). Dedupe is per user, on what identifies the purchase, never on signature
/// bytes (ES256 signatures are malleable, and Apple re-signs): the same signed transaction —
/// transaction id and environment — from the same user, or the same transaction id from the
/// same user, gets that user's job back (`created == false`) with its verdict as the ledger reads
/// it now. Another user's submission of the same purchase is a job of its own, with a verdict of
/// its own. The key lives in `transaction_submissions`, written before the job as
/// `EnqueueBatch` writes a receipt's (migration 0034): the job's id comes from the jobs sequence,
/// the key goes in ON CONFLICT DO NOTHING, and the job only where its key went in.
public enum EnqueueTransactions {
    /// A submission's environment as its key holds it: a signed transaction's, '' for a
    /// transaction id (which names no environment).
    /// `PruneFinishedJobs` deletes keys by the same expression.
    static func environmentKey(kind: String, environment: String) -> String {
        "CASE WHEN \(kind) = 'signed_transaction' THEN coalesce(\(environment), '') ELSE '' END"
    }

    static let sql = """
        WITH input AS (
            SELECT i.*, nextval('receiptq.jobs_id_seq') AS new_id
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::text[], $9::bool[], $10::text[], $11::text[], $12::text[])
                 WITH ORDINALITY
                 AS i(kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token, environment,
                      trusted_claim, claim_proof, request_id, trace_parent, ord)
        ), keyed AS (
            INSERT INTO receiptq.transaction_submissions (kind, transaction_id, user_id, environment, job_id)
            SELECT i.kind, i.transaction_id, i.user_id, \(environmentKey(kind: "i.kind", environment: "i.environment")), i.new_id FROM input i ORDER BY i.ord
            ON CONFLICT DO NOTHING
            RETURNING job_id
        ), inserted AS (
            INSERT INTO receiptq.jobs (id, kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token,
                                       apple_environment, trusted_claim, claim_proof, request_id, trace_parent)
            OVERRIDING SYSTEM VALUE
            SELECT i.new_id, i.kind, i.signed_transaction, i.transaction_id, i.user_id, i.product_id, i.order_id, i.app_account_token,
                   i.environment, i.trusted_claim, i.claim_proof, i.request_id, i.trace_parent   -- claim_proof: checked, then cleared (jobs_check_trusted_claim)
            FROM input i JOIN keyed k ON k.job_id = i.new_id ORDER BY i.ord
            RETURNING id, state
        ), made AS (
            -- The key each new job was made for: a repeat inside the batch finds its first.
            SELECT n.id, n.state, i.kind, i.transaction_id, i.user_id, \(environmentKey(kind: "i.kind", environment: "i.environment")) AS environment
            FROM inserted n JOIN input i ON i.new_id = n.id
        )
        SELECT i.ord,
               coalesce(n.id, e.id) AS id,
               n.id IS NOT NULL AS created,
               coalesce(n.state, e.state) AS state,
               \(Verdict.sql(state: "coalesce(n.state, e.state)", id: "coalesce(n.id, e.id)", userID: "i.user_id", grant: "g")) AS verdict
        FROM input i
        LEFT JOIN made n ON n.kind = i.kind AND n.transaction_id = i.transaction_id AND n.user_id = i.user_id
                        AND n.environment = \(environmentKey(kind: "i.kind", environment: "i.environment"))
        LEFT JOIN receiptq.transaction_submissions s ON s.kind = i.kind AND s.transaction_id = i.transaction_id
                                                   AND s.user_id = i.user_id AND s.environment = \(environmentKey(kind: "i.kind", environment: "i.environment"))  -- transaction_submissions_pkey
        LEFT JOIN receiptq.jobs e ON e.id = s.job_id                                                     -- jobs_pkey
        LEFT JOIN receiptq.grants g ON g.purchase_key = e.purchase_key                                   -- grants_pkey
        ORDER BY i.ord
        """

    /// A duplicate inserted by a concurrent transaction after the statement's snapshot.
    static let lookupSQL = """
        SELECT e.id, e.state, \(Verdict.sql(state: "e.state", id: "e.id", userID: "i.user_id", grant: "g")) AS verdict
        FROM (SELECT $1::text AS kind, $2::text AS transaction_id, $3::text AS user_id, $4::text AS environment) AS i
        JOIN receiptq.transaction_submissions s ON s.kind = i.kind AND s.transaction_id = i.transaction_id
                                              AND s.user_id = i.user_id AND s.environment = \(environmentKey(kind: "i.kind", environment: "i.environment"))  -- transaction_submissions_pkey
        JOIN receiptq.jobs e ON e.id = s.job_id                                                          -- jobs_pkey
        LEFT JOIN receiptq.grants g ON g.purchase_key = e.purchase_key
        """

    public static func run(_ jobs: [NewJob], on connection: PostgresConnection) throws -> [EnqueuedJob] {
        guard !jobs.isEmpty else { return [] }
        precondition(jobs.allSatisfy { $0.kind != .receipt }, "receipts go through EnqueueBatch")
        let rows = try connection.query(sql, [
            jobs.map(\.kind.rawValue), jobs.map(\.signedTransaction), jobs.map(\.transactionID), jobs.map(\.userID),
            jobs.map(\.productID), jobs.map(\.orderID), jobs.map { $0.appAccountToken?.uuidString }, jobs.map(\.environment),
            jobs.map(\.trustedClaim), jobs.map { $0.claimProof?.token }, jobs.map(\.requestID), jobs.map(\.traceParent),
        ])
        var results: [EnqueuedJob] = []
        var seen: Set<Int64> = []
        for (row, job) in zip(rows, jobs) {
            if let id = try row.decodeIfPresent("id", as: Int64.self) {
                // A repeat inside the batch: the first one created it.
                results.append(EnqueuedJob(id: id, created: try row.decode("created") && seen.insert(id).inserted,
                                           state: try EnqueueBatch.decodeState(row), verdict: try Verdict.decode(row)))
            } else {
                // Inserted concurrently by another transaction after this statement's snapshot.
                guard let found = try connection.query(lookupSQL, [job.kind.rawValue, job.transactionID, job.userID,
                                                                   job.environment]).first else {
                    throw PostgresError(.server, "job vanished while enqueueing")
                }
                results.append(EnqueuedJob(id: try found.decode("id"), created: false, state: try EnqueueBatch.decodeState(found),
                                           verdict: try Verdict.decode(found)))
            }
        }
        return results
    }
}
