import Foundation
import Postgres

/// Applies what a batch's verified submissions say about subscriptions (a receipt's
/// `latest_receipt_info` and `pending_renewal_info`, a signed transaction's period) to the model,
/// inside `RecordOutcomes`' transaction: the verdict, the grant, the model and their events commit
/// together, or none of them.
///
/// The rules (`plan`, pure and table-tested):
/// - Only a submission whose purchase the ledger holds feeds the model: granted, already granted,
///   or another account's (`owned_elsewhere`: Apple's facts are true whoever replays them). A
///   rejected, resubmitted, failed or retried job feeds nothing.
/// - The owner named to the model is the job's user only when the ledger granted that user the
///   job's own subscription (granted or already granted) — never a replay under another account,
///   and never the other subscriptions a receipt holds; those are told to the user the ledger
///   already knows, or kept without events (`ApplySubscriptionFact`).
/// - The same fact twice in a batch (one receipt, two jobs) is applied once; facts are applied in
///   (original transaction, environment) order, so two batches never wait on each other's
///   subscription rows in a cycle.
/// - The model never costs a payer the verdict: the facts are applied under a savepoint, and one
///   the model cannot take (a stored snapshot it cannot read) is left out of the commit and
///   reported (`Result.skipped`); a passing failure (a deadlock, a lost connection) is thrown, and
///   the writer retries the whole batch.
public enum ApplySubmissionFacts {
    public struct Planned: Sendable, Hashable {
        public var fact: SubscriptionFact
        /// The user who may become the subscription's user when none is known yet.
        public var owner: String?

        public init(fact: SubscriptionFact, owner: String?) {
            self.fact = fact
            self.owner = owner
        }
    }

    public struct Result: Sendable, Equatable {
        public var events: [NewEvent] = []
        /// Changes the facts made (events or not: a subscription without a user has none).
        public var changes = 0
        /// Facts applied (repeats and older facts included).
        public var applied = 0
        /// Why the batch's facts were left out (the verdicts commit without them); nil when applied.
        public var skipped: String?
    }

    public static func plan(_ attempts: [FinishedAttempt], outcomes: [Int64: JobOutcome]) -> [Planned] {
        var planned: [Planned] = []
        var index: [SubscriptionFact: Int] = [:]
        for attempt in attempts where !attempt.subscriptionFacts.isEmpty {
            guard case .grant(let candidate) = attempt.decision else { continue }
            let ownsIt: Bool
            switch outcomes[attempt.lease.id] {
            case .granted, .alreadyGranted: ownsIt = true
            case .ownedElsewhere: ownsIt = false
            default: continue
            }
            for fact in attempt.subscriptionFacts {
                let owner = ownsIt && fact.originalTransactionID == candidate.originalTransactionID
                    && fact.environment == candidate.environment ? attempt.lease.userID : nil
                if let at = index[fact] {
                    planned[at].owner = planned[at].owner ?? owner
                } else {
                    index[fact] = planned.count
                    planned.append(Planned(fact: fact, owner: owner))
                }
            }
        }
        // Stable: facts about one subscription keep the order the answer gave them.
        return planned.enumerated().sorted { a, b in
            let (x, y) = (a.element.fact, b.element.fact)
            if x.originalTransactionID != y.originalTransactionID { return x.originalTransactionID < y.originalTransactionID }
            if x.environment != y.environment { return x.environment < y.environment }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// Applies the planned facts in the caller's transaction, under a savepoint (2 statements
    /// more, only for a batch with facts); the caller appends the events.
    public static func run(_ planned: [Planned], now: Date, on connection: PostgresConnection) throws -> Result {
        guard !planned.isEmpty else { return Result() }
        try connection.query("SAVEPOINT submission_facts")
        do {
            let result = try apply(planned, now: now, on: connection)
            try connection.query("RELEASE SAVEPOINT submission_facts")
            return result
        } catch {
            if let failure = error as? PostgresError, failure.isConnectionFailure || passingStates.contains(failure.sqlState ?? "") {
                throw error
            }
            try connection.query("ROLLBACK TO SAVEPOINT submission_facts")
            return Result(skipped: String(describing: error).prefix(300).description)
        }
    }

    /// Deadlock, serialization failure, lock not available, too many connections: worth retrying.
    static let passingStates: Set<String> = ["40P01", "40001", "55P03", "53300"]

    static func apply(_ planned: [Planned], now: Date, on connection: PostgresConnection) throws -> Result {
        var result = Result()
        for item in planned {
            let applied = try ApplySubscriptionFact.run(item.fact, now: now, owner: item.owner, on: connection)
            result.events += applied.events
            result.changes += applied.changes.count
            result.applied += 1
        }
        return result
    }
}
