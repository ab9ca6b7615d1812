import Foundation
import Postgres

/// Ends an attempt at a notification that changed nothing in the ledger: a retry later (our
/// trouble), or `failed` (it cannot be applied as it is; kept for ops and re-drivable). Where a
/// retry leads is `NotificationLifecycle`'s: past its budget, `failed`. Fenced by the lease, like
/// job completions.
public enum FinishNotification {
    /// How the attempt ended, as the worker saw it.
    public enum Ending: Sendable, Hashable {
        /// Our trouble: try again after `after`.
        case retry(after: Duration, error: String)
        /// It cannot be applied.
        case failed(reason: String)
    }

    static let retrySQL = """
        UPDATE receiptq.notifications
        SET state = '\(NotificationQueueState.queued.rawValue)', run_at = now() + $4 * interval '1 millisecond',
            locked_by = NULL, locked_until = NULL, last_error = $5
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3
        """
    static let failSQL = """
        UPDATE receiptq.notifications
        SET state = '\(NotificationQueueState.failed.rawValue)', locked_by = NULL, locked_until = NULL, last_error = $4, outcome = $4
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3
        """

    /// Writes `ending` in the state the lifecycle gives it; returns that state, or nil when the
    /// lease was lost (nothing written).
    @discardableResult
    public static func run(_ lease: NotificationLease, _ ending: Ending, worker: String, lifecycle: NotificationLifecycle,
                           on connection: PostgresConnection) throws -> NotificationQueueState? {
        let facts = NotificationLifecycle.Facts(attempts: lease.attempt)
        switch ending {
        case .retry(let delay, let error):
            // `next` is total from `applying`: queued, or failed once the budget is spent.
            let state = lifecycle.next(.applying, on: .complete(.retry), facts: facts, now: Date()) ?? .failed
            guard state == .queued else {
                return try fail(lease, worker: worker, reason: "gave up after \(lease.attempt) attempts: \(error)", on: connection)
            }
            let written = try connection.query(retrySQL, [lease.uuid, lease.attempt, worker, delay.milliseconds,
                                                          String(error.prefix(500))]).affectedRows == 1
            return written ? .queued : nil
        case .failed(let reason):
            return try fail(lease, worker: worker, reason: reason, on: connection)
        }
    }

    private static func fail(_ lease: NotificationLease, worker: String, reason: String,
                             on connection: PostgresConnection) throws -> NotificationQueueState? {
        try connection.query(failSQL, [lease.uuid, lease.attempt, worker, String(reason.prefix(500))]).affectedRows == 1 ? .failed : nil
    }
}
