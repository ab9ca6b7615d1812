import Foundation
import Postgres

/// Records a status check in the caller's transaction: Apple's answer applied to the model as a
/// `statusCheck` fact (with its events), every field that disagreed recorded as a correction, and
/// the next check scheduled by `ReconciliationSchedule`. Fenced by the claim's `leaseUntil`.
///
/// Apple answers with every subscription of the customer: the others the model holds are checked
/// by the same answer (`others`) — applied, corrected and scheduled the same way — unless another
/// worker holds one (locked, or claimed: due within its lease), so a customer with N
/// subscriptions costs one request, not N.
public enum RecordReconciliation {
    public struct Result: Sendable, Equatable {
        /// False: the claim was taken over (its lease ended); nothing was written.
        public var recorded: Bool
        public var corrections: [String]
        public var changes: [SubscriptionChange]
        public var next: Date?
        /// Other subscriptions of the customer checked by the same answer.
        public var covered = 0
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

    /// Another subscription of the customer, unless a worker holds it: locked now, or claimed
    /// (its `reconcile_at` moved out by a claim's lease, `$3` ms).
    static let otherSQL = """
        SELECT 1 FROM receiptq.subscriptions
        WHERE original_transaction_id = $1 AND environment = $2                                 -- subscriptions_pkey
          AND (reconcile_at IS NULL OR reconcile_at <= now() OR reconcile_at > now() + $3 * interval '1 millisecond')
        FOR UPDATE SKIP LOCKED
        """

    /// Applies `fact` (nil: Apple had no status for it — scheduled again after `afterFailure`),
    /// and `others` of the same answer to the subscriptions the model holds and no worker does.
    public static func run(_ lease: ReconciliationLease, fact: SubscriptionFact?, others: [SubscriptionFact] = [],
                           claimLease: Duration = .seconds(60), schedule: ReconciliationSchedule,
                           now: Date = Date(), on connection: PostgresConnection) throws -> Result {
        guard try connection.query(fenceSQL, [lease.originalTransactionID, lease.environment, lease.leaseUntil.millisecondsSince1970])
            .first != nil else {
            return Result(recorded: false, corrections: [], changes: [], next: nil)
        }
        let checked = try check(lease.originalTransactionID, lease.environment, fact: fact, schedule: schedule, now: now, on: connection)
        var covered = 0
        for other in others where other.originalTransactionID != lease.originalTransactionID {
            guard try connection.query(otherSQL, [other.originalTransactionID, lease.environment, claimLease.milliseconds]).first != nil else {
                continue
            }
            _ = try check(other.originalTransactionID, lease.environment, fact: other, schedule: schedule, now: now, on: connection)
            covered += 1
        }
        return Result(recorded: true, corrections: checked.corrections, changes: checked.changes, next: checked.next, covered: covered)
    }

    /// One subscription's check: the fact applied, corrections recorded, the next check scheduled.
    private static func check(_ originalTransactionID: String, _ environment: String, fact: SubscriptionFact?, schedule: ReconciliationSchedule,
                              now: Date, on connection: PostgresConnection) throws -> (corrections: [String], changes: [SubscriptionChange], next: Date) {
        var corrections: [String] = []
        var changes: [SubscriptionChange] = []
        var next = now.addingTimeInterval(schedule.afterFailure)
        if var fact {
            fact.environment = environment
            let before = try connection.query(RecordSubscriptionCorrections.stateSQL, [originalTransactionID, environment])
                .first?.decodeIfPresent("state", as: String.self)
            let applied = try ApplySubscriptionFact.run(fact, now: now, on: connection)
            try AppendEvents.run(applied.events, on: connection)
            corrections = applied.corrections
            changes = applied.changes
            try RecordSubscriptionCorrections.run(originalTransactionID: originalTransactionID, environment: environment,
                                                  source: "status_check", fields: corrections, stateBefore: before,
                                                  stateAfter: applied.subscription?.status.rawValue, on: connection)
            if let s = applied.subscription {
                next = schedule.next(s.status, expiresAt: s.expiresAt, gracePeriodExpiresAt: s.gracePeriodExpiresAt, now: now)
            }
        }
        try connection.query(scheduleSQL, [originalTransactionID, environment, next.millisecondsSince1970])
        return (corrections, changes, next)
    }
}
