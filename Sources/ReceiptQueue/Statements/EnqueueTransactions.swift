import Foundation
import Postgres

/// Inserts StoreKit 2 signed transactions and transaction ids in one statement (one commit for
/// the whole batch). Dedupe: the same signed transaction (`jobs_signed_dedupe_idx` on its digest;
/// an updated one, e.g. after a refund, is a new submission), or the same transaction id for the
/// same user (`jobs_transaction_dedupe_idx`), gets the existing job back (`created == false`).
public enum EnqueueTransactions {
    static let sql = """
        WITH input AS (
            SELECT i.*, receiptq.receipt_digest(i.signed_transaction) AS digest
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[]) WITH ORDINALITY
                 AS i(kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token, ord)
        ), inserted AS (
            INSERT INTO receiptq.jobs (kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token)
            SELECT kind, signed_transaction, transaction_id, user_id, product_id, order_id, app_account_token FROM input ORDER BY ord
            ON CONFLICT DO NOTHING
            RETURNING id, kind, signed_sha256, transaction_id, user_id, state
        )
        SELECT i.ord,
               coalesce(n.id, s.id, t.id) AS id,
               n.id IS NOT NULL AS created,
               coalesce(n.state, s.state, t.state) AS state
        FROM input i
        LEFT JOIN inserted n ON n.kind = i.kind AND n.transaction_id = i.transaction_id AND n.user_id = i.user_id
             AND n.signed_sha256 IS NOT DISTINCT FROM i.digest
        LEFT JOIN receiptq.jobs s ON i.kind = 'signed_transaction' AND s.signed_sha256 = i.digest                 -- jobs_signed_dedupe_idx
        LEFT JOIN receiptq.jobs t ON i.kind = 'transaction_id' AND t.kind = 'transaction_id'
             AND t.transaction_id = i.transaction_id AND t.user_id = i.user_id                                     -- jobs_transaction_dedupe_idx
        ORDER BY i.ord
        """

    static let lookupSQL = """
        SELECT id, state FROM receiptq.jobs
        WHERE ($1 = 'signed_transaction' AND signed_sha256 = receiptq.receipt_digest($2))                      -- jobs_signed_dedupe_idx
           OR ($1 = 'transaction_id' AND kind = 'transaction_id' AND transaction_id = $3 AND user_id = $4)    -- jobs_transaction_dedupe_idx
        """

    public static func run(_ jobs: [NewJob], on connection: PostgresConnection) throws -> [EnqueuedJob] {
        guard !jobs.isEmpty else { return [] }
        precondition(jobs.allSatisfy { $0.kind != .receipt }, "receipts go through EnqueueBatch")
        let rows = try connection.query(sql, [
            jobs.map(\.kind.rawValue), jobs.map(\.signedTransaction), jobs.map(\.transactionID), jobs.map(\.userID),
            jobs.map(\.productID), jobs.map(\.orderID), jobs.map { $0.appAccountToken?.uuidString },
        ])
        var results: [EnqueuedJob] = []
        var seen: Set<Int64> = []
        for (row, job) in zip(rows, jobs) {
            if let id = try row.decodeIfPresent("id", as: Int64.self) {
                // A repeat inside the batch: the first one created it.
                results.append(EnqueuedJob(id: id, created: try row.decode("created") && seen.insert(id).inserted,
                                           state: try EnqueueBatch.decodeState(row)))
            } else {
                // Inserted concurrently by another transaction after this statement's snapshot.
                guard let found = try connection.query(lookupSQL, [job.kind.rawValue, job.signedTransaction, job.transactionID,
                                                                   job.userID]).first else {
                    throw PostgresError(.server, "job vanished while enqueueing")
                }
                results.append(EnqueuedJob(id: try found.decode("id"), created: false, state: try EnqueueBatch.decodeState(found)))
            }
        }
        return results
    }
}
