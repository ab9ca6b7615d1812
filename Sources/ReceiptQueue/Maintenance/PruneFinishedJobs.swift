import Postgres

/// Deletes finished jobs older than their retention, oldest first, at most `limit` per
/// statement. Only terminal jobs are touched (a receipt not yet verified is never deleted), and
/// the grants ledger is a separate table that is never pruned. Each outcome has its own
/// retention: receipts of delivered purchases go after 30 days by default, receipts Apple
/// called invalid, and submissions of a purchase another account owns (replays, for fraud
/// review), are kept a year (disputes), receipts of `failed` jobs are kept until ops
/// re-drive them (DESIGN: "kept for ops, never deleted"). Served by `jobs_finished_idx`. A pruned
/// job's dedupe key (`receipt_submissions`, `transaction_submissions`) goes in the same
/// statement, so the same submission made again makes a new job.
public enum PruneFinishedJobs {
    /// Outcomes that share a retention.
    public enum Outcomes: String, Sendable, CaseIterable {
        /// granted, already_granted, resubmit: the purchase is in the ledger or the app resubmits.
        case settled
        /// rejected: Apple said the receipt is not valid; owned_elsewhere: another account owns the
        /// purchase (a replay, kept as long for disputes and fraud review). Until 2026-11-26 no
        /// class named owned_elsewhere, and those jobs were never pruned.
        case rejected
        /// failed: given up after the retry budget; kept for ops.
        case failed

        /// The terminal states this class prunes; together the classes name each terminal state
        /// once (`LifecycleAgreementTests`).
        public var states: [JobState] {
            switch self {
            case .settled: [.granted, .alreadyGranted, .resubmit]
            case .rejected: [.rejected, .ownedElsewhere]
            case .failed: [.failed]
            }
        }

        /// The states as an SQL list spelled in the statement itself, so the planner can see it
        /// implies `jobs_finished_idx`'s predicate.
        var sqlList: String { "(" + states.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")" }

        var sql: String {
            """
            WITH old AS (
                SELECT id FROM receiptq.jobs
                WHERE state IN \(sqlList)
                  AND finished_at < now() - $1 * interval '1 millisecond'             -- jobs_finished_idx
                ORDER BY finished_at
                LIMIT $2
            ), pruned AS (
                DELETE FROM receiptq.jobs AS j
                USING old
                WHERE j.id = old.id AND j.state IN \(sqlList)
                RETURNING j.id, j.kind, j.receipt_sha256, j.transaction_id, j.user_id, j.apple_environment
            ), unkeyed_receipts AS (
                DELETE FROM receiptq.receipt_submissions AS s
                USING pruned p
                WHERE s.receipt_sha256 = p.receipt_sha256 AND s.transaction_id = p.transaction_id
                  AND s.user_id = p.user_id AND s.job_id = p.id                        -- receipt_submissions_pkey
            ), unkeyed_transactions AS (
                DELETE FROM receiptq.transaction_submissions AS s
                USING pruned p
                WHERE s.kind = p.kind AND s.transaction_id = p.transaction_id AND s.user_id = p.user_id
                  AND s.environment = \(EnqueueTransactions.environmentKey(kind: "p.kind", environment: "p.apple_environment"))
                  AND s.job_id = p.id                                                   -- transaction_submissions_pkey
            )
            SELECT count(*) AS pruned FROM pruned
            """
        }
    }

    public static func run(_ outcomes: Outcomes, retention: Duration, limit: Int, on connection: PostgresConnection) throws -> Int {
        Int(try connection.query(outcomes.sql, [retention.milliseconds, limit])[0].decode("pruned", as: Int64.self))
    }
}
