import Foundation
import Postgres

/// Inserts StoreKit 2 signed transactions and transaction ids in one statement (one commit for
/// the whole batch). Dedupe is per user, on what identifies the purchase, never on signature
/// bytes (ES256 signatures are malleable, and Apple re-signs): the same signed transaction —
/// transaction id and environment — from the same user (`jobs_signed_dedupe_idx`), or the same
/// transaction id from the same user (`jobs_transaction_dedupe_idx`), gets that user's job back
/// (`created == false`) with its verdict as the ledger reads it now. Another user's submission of
/// the same purchase is a job of its own, with a verdict of its own.
public enum EnqueueTransactions {
    static let sql = """
        WITH input AS (
            SELECT i.*
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::text[], $9::bool[], $10::text[], $11::text[])
                 WITH ORDINALITY
                 AS i(kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token, environment,
                      trusted_claim, claim_proof, request_id, ord)
        ), inserted AS (
            INSERT INTO receiptq.jobs (kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token,
                                       apple_environment, trusted_claim, claim_proof, request_id)
            SELECT kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token, environment,
                   trusted_claim, claim_proof, request_id                                 -- claim_proof: checked, then cleared (jobs_check_trusted_claim)
            FROM input ORDER BY ord
            ON CONFLICT DO NOTHING
            RETURNING id, kind, transaction_id, user_id, apple_environment, state
        )
        SELECT i.ord,
               coalesce(n.id, e.id) AS id,
               n.id IS NOT NULL AS created,
               coalesce(n.state, e.state) AS state,
               \(Verdict.sql(state: "coalesce(n.state, e.state)", id: "coalesce(n.id, e.id)", userID: "i.user_id", grant: "g")) AS verdict
        FROM input i
        LEFT JOIN inserted n ON n.kind = i.kind AND n.transaction_id = i.transaction_id AND n.user_id = i.user_id
             AND n.apple_environment IS NOT DISTINCT FROM i.environment
        LEFT JOIN LATERAL (
            \(existingSQL)
        ) AS e ON true
        LEFT JOIN receiptq.grants g ON g.purchase_key = e.purchase_key                                   -- grants_pkey
        ORDER BY i.ord
        """

    /// The user's existing job for input row `i`, one partial index per kind.
    static let existingSQL = """
        SELECT s.id, s.state, s.purchase_key FROM receiptq.jobs s
        WHERE i.kind = 'signed_transaction' AND s.kind = 'signed_transaction'
          AND s.transaction_id = i.transaction_id AND s.user_id = i.user_id AND s.apple_environment = i.environment  -- jobs_signed_dedupe_idx
        UNION ALL
        SELECT t.id, t.state, t.purchase_key FROM receiptq.jobs t
        WHERE i.kind = 'transaction_id' AND t.kind = 'transaction_id'
          AND t.transaction_id = i.transaction_id AND t.user_id = i.user_id                                        -- jobs_transaction_dedupe_idx
        """

    /// A duplicate inserted by a concurrent transaction after the statement's snapshot.
    static let lookupSQL = """
        SELECT e.id, e.state, \(Verdict.sql(state: "e.state", id: "e.id", userID: "i.user_id", grant: "g")) AS verdict
        FROM (SELECT $1::text AS kind, $2::text AS transaction_id, $3::text AS user_id, $4::text AS environment) AS i
        CROSS JOIN LATERAL (
            \(existingSQL)
        ) AS e
        LEFT JOIN receiptq.grants g ON g.purchase_key = e.purchase_key
        """

    public static func run(_ jobs: [NewJob], on connection: PostgresConnection) throws -> [EnqueuedJob] {
        guard !jobs.isEmpty else { return [] }
        precondition(jobs.allSatisfy { $0.kind != .receipt }, "receipts go through EnqueueBatch")
        let rows = try connection.query(sql, [
            jobs.map(\.kind.rawValue), jobs.map(\.signedTransaction), jobs.map(\.transactionID), jobs.map(\.userID),
            jobs.map(\.productID), jobs.map(\.orderID), jobs.map { $0.appAccountToken?.uuidString }, jobs.map(\.environment),
            jobs.map(\.trustedClaim), jobs.map { $0.claimProof?.token }, jobs.map(\.requestID),
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
