import Foundation
import Postgres

/// Ends a walk, fenced by its lease, in the state `HistorySyncLifecycle` gives it: `synced` (the
/// last page was imported), `failed` (Apple does not know the transaction, or the attempts ran
/// out) or back to `queued` after `delay` (Apple's trouble; the revision kept resumes it).
public enum FinishHistorySync {
    public enum Ending: Sendable, Hashable {
        case synced
        case failed(String)
        case retry(after: Duration, error: String)
        /// Shutdown: back to the queue now, no attempt counted against it.
        case release
        /// A long walk gives its slot to others after `maxPagesPerClaim` pages: back to the queue
        /// now, to resume from the revision kept; no attempt counted against it.
        case yielded
    }

    static let sql = """
        UPDATE receiptq.history_syncs
        SET state = $5, last_error = $6, run_at = now() + $7 * interval '1 millisecond',
            synced_at = CASE WHEN $5 = '\(HistorySyncState.synced.rawValue)' THEN now() ELSE synced_at END,
            attempts = attempts - $8, locked_by = NULL, locked_until = NULL
        WHERE original_transaction_id = $1 AND environment = $2 AND attempts = $3 AND locked_by = $4     -- history_syncs_pkey
          AND state = '\(HistorySyncState.syncing.rawValue)'
        """

    /// One history per Apple account: a walk that reached the last page imported every original
    /// transaction in it, so their syncs queued and never walked end with it, at its revision.
    /// Not a backfill that vouches for a user (its owner rule is its own), nor one being walked.
    static let coverSQL = """
        UPDATE receiptq.history_syncs
        SET state = '\(HistorySyncState.synced.rawValue)', revision = $3, synced_at = now(), covered_by = $4, last_error = NULL
        WHERE original_transaction_id = ANY($1::text[]) AND environment = $2 AND original_transaction_id <> $4   -- history_syncs_pkey
          AND state = '\(HistorySyncState.queued.rawValue)' AND revision IS NULL AND pages = 0
          AND NOT (reason = '\(QueueHistorySync.Reason.backfill.rawValue)' AND user_id IS NOT NULL)
        """

    /// The state `ending` leads to, with the error it records and its delay in milliseconds.
    static func resolve(_ lease: HistorySyncLease, _ ending: Ending,
                        lifecycle: HistorySyncLifecycle) -> (state: HistorySyncState, error: String?, delay: Int64) {
        let facts = HistorySyncLifecycle.Facts(attempts: lease.attempt)
        let (end, error, delay): (HistorySyncLifecycle.End, String?, Int64) = switch ending {
        case .synced: (.synced, nil, 0)
        case .failed(let reason): (.failed, String(reason.prefix(1000)), 0)
        case .retry(let after, let reason): (.retry, String(reason.prefix(1000)), after.milliseconds)
        case .release: (.retry, "released at shutdown", 0)
        case .yielded: (.retry, nil, 0)
        }
        // `next` is total from `syncing`.
        let state = lifecycle.next(.syncing, on: .complete(end), facts: facts, now: Date()) ?? .failed
        return (state, error, delay)
    }

    /// Writes the walk's end; returns the state written, or nil when the lease was lost. A walk
    /// `synced` also ends the syncs of `covering` (the other original transactions its pages held)
    /// that were queued and never walked, at `revision`.
    @discardableResult
    public static func run(_ lease: HistorySyncLease, _ ending: Ending, worker: String, covering: Set<String> = [], revision: String? = nil,
                           lifecycle: HistorySyncLifecycle = HistorySyncLifecycle(),
                           on connection: PostgresConnection) throws -> HistorySyncState? {
        var (state, error, delay) = resolve(lease, ending, lifecycle: lifecycle)
        let handedBack = ending == .release || ending == .yielded
        let refund = handedBack ? 1 : 0
        if handedBack { state = .queued }
        let written = try connection.query(sql, [
            lease.originalTransactionID, lease.environment, lease.attempt, worker, state.rawValue, error, delay, refund,
        ]).affectedRows == 1
        if written && state == .synced && !covering.isEmpty, let revision {
            try connection.query(coverSQL, [Array(covering.subtracting([lease.originalTransactionID])).sorted(), lease.environment, revision,
                                            lease.originalTransactionID])
        }
        return written ? state : nil
    }
}
