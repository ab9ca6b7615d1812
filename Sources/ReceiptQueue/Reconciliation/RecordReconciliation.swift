import Foundation
import Postgres

/// Records a status check in the caller's transaction: Apple's answer applied to the model as a
/// `statusCheck` fact (with its events), every field that disagreed recorded as a correction, and
/// the next check scheduled by `ReconciliationSchedule`. Fenced by the claim's `leaseUntil`.
public enum RecordReconciliation {
    public struct Result: Sendable, Equatable {
        /// False: the claim was taken over (its lease ended); nothing was written.
        public var recorded: Bool
        public var corrections: [String]
        public var changes: [SubscriptionChange]
        public var next: Date?
    }

    static let fenceSQL = """
        SELECT 1 FROM receiptq.subscriptions
        WHERE original_transaction_id = $1 AND environment = $2                                 -- subscriptions_pkey
          AND reconcile_at = to_timestamp($3 / 1000.0)
        FOR UPDATE
        """
    static let scheduleSQL = """
        UPDATE receiptq.subscriptions SET reconcile_at = to_timestamp($3 / 1000.0), reconciled_at = now()
        WHERE original_transaction_id = $1 AND environment = $2                                 -- subscriptions_pkey
        RETURNING state
        """

    /// Applies `fact` (nil: Apple had no status for it — scheduled again after `afterFailure`).
    public static func run(_ lease: ReconciliationLease, fact: SubscriptionFact?, schedule: ReconciliationSchedule,
                           now: Date = Date(), on connection: PostgresConnection) throws -> Result {
        guard try connection.query(fenceSQL, [lease.originalTransactionID, lease.environment, lease.leaseUntil.millisecondsSince1970])
            .first != nil else {
            return Result(recorded: false, corrections: [], changes: [], next: nil)
        }
        var corrections: [String] = []
        var changes: [SubscriptionChange] = []
        var next = now.addingTimeInterval(schedule.afterFailure)
        if var fact {
            fact.environment = lease.environment
            let before = try connection.query(RecordSubscriptionCorrections.stateSQL, [lease.originalTransactionID, lease.environment])
                .first?.decodeIfPresent("state", as: String.self)
            let applied = try ApplySubscriptionFact.run(fact, now: now, on: connection)
            try AppendEvents.run(applied.events, on: connection)
            corrections = applied.corrections
            changes = applied.changes
            try RecordSubscriptionCorrections.run(originalTransactionID: lease.originalTransactionID, environment: lease.environment,
                                                  source: "status_check", fields: corrections, stateBefore: before,
                                                  stateAfter: applied.subscription?.status.rawValue, on: connection)
            if let s = applied.subscription {
                next = schedule.next(s.status, expiresAt: s.expiresAt, gracePeriodExpiresAt: s.gracePeriodExpiresAt, now: now)
            }
        }
        try connection.query(scheduleSQL, [lease.originalTransactionID, lease.environment, next.millisecondsSince1970])
        return Result(recorded: true, corrections: corrections, changes: changes, next: next)
    }
}
