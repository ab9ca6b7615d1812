import Foundation
import Postgres

/// Writes a batch of finished attempts — grants and job outcomes together — inside the caller's
/// transaction, so a grant exists if and only if its job ended `granted` (invariant 2).
///
/// 1. Locks the batch's jobs that are still this worker's lease at the named attempt (primary
///    key, in id order so workers never wait on each other in a cycle). The rest lost their lease.
///    A batch without a grant skips this: step 5 fences each row on its own.
/// 2. Takes each grant's transaction lock (`receiptq.transaction:<id>`, as `ApplyNotification`
///    does) and refuses a transaction Apple's notifications said was refunded or revoked: not paid.
/// 3. Writes the other grants of held jobs to the ledger, set-based (`RecordPurchases`, decided by
///    `LedgerDecision`): granted, already granted (one ledger row per purchase), another account's
///    (`owned_elsewhere`), a claim without proof (`resubmit`), or held because the app requires an
///    appAccountToken (`failed`).
/// 4. Applies what the submissions whose purchase the ledger holds say about subscriptions to
///    the model (`ApplySubmissionFacts`; nothing for a batch without subscription periods).
/// 5. Ends every held job with `CompleteBatch`, in the state `JobLifecycle` gives its outcome.
/// 6. Appends one event per job that reached a terminal state (`AppendJobEvents`), then the
///    subscriptions' events, last, so the events commit with the changes they report.
public enum RecordOutcomes {
    static let lockSQL = """
        SELECT j.id
        FROM receiptq.jobs AS j
        JOIN unnest($1::bigint[], $2::int[], array_fill($3::text, ARRAY[cardinality($1::bigint[])])) AS l(id, attempt, worker)
          ON j.id = l.id AND j.attempts = l.attempt                                     -- primary key
         AND j.locked_by = l.worker   -- implies state = 'verifying' (jobs_lease_check); a join clause, as in CompleteBatch
        ORDER BY j.id
        FOR UPDATE OF j
        """

    /// In transaction-id order, so two batches never wait on each other in a cycle. A separate
    /// statement from the check below: that one's snapshot then sees what committed meanwhile.
    static let transactionLocksSQL = """
        SELECT pg_advisory_xact_lock(hashtextextended('receiptq.transaction:' || t.id, 0))
        FROM (SELECT DISTINCT unnest($1::text[]) AS id ORDER BY 1) AS t
        """
    static let revokedSQL = """
        SELECT transaction_id, reason FROM receiptq.revocations
        WHERE transaction_id = ANY($1::text[]) AND reinstated_at IS NULL                       -- primary key
        """

    public struct Result: Sendable, Equatable {
        /// How each held job's attempt was recorded (after the lifecycle: a retry whose budget
        /// is spent shows as `failed`).
        public var outcomes: [Int64: JobOutcome]
        /// Grants recorded without a matching order (for ops to reconcile).
        public var unmatchedGrants: Int
        /// Attempts refused by the fence: their job is no longer this lease's.
        public var lostLease: Set<Int64>
        /// Subscription facts the batch's submissions carried, applied to the model.
        public var subscriptionFacts = 0
        /// Changes those facts made to the model.
        public var subscriptionChanges = 0
        /// Why the model could not take the batch's facts (the verdicts committed without them).
        public var subscriptionFactsSkipped: String?

        /// Jobs whose attempt was written.
        public var completed: Set<Int64> { Set(outcomes.keys) }
    }

    /// - Parameters:
    ///   - lifecycle: decides each job's next state (and gives up retries whose budget is spent).
    ///   - now: the clock for the retry budget.
    ///   - ownership: what the ledger demands of a new purchase's owner.
    public static func run(_ attempts: [FinishedAttempt], worker: String, lifecycle: JobLifecycle,
                           ownership: OwnershipPolicy = OwnershipPolicy(), now: Date = Date(),
                           on connection: PostgresConnection) throws -> Result {
        guard !attempts.isEmpty else { return Result(outcomes: [:], unmatchedGrants: 0, lostLease: []) }
        // Only a grant writes outside `jobs` (the ledger, the subscription model), so only a batch
        // with one needs its leases locked before it writes. Without one, the fenced completion is
        // the whole write and fences each row itself: a lock first would cost every row a second
        // write (its lock) and the batch a round trip.
        let locksFirst = attempts.contains { if case .grant = $0.decision { true } else { false } }
        let held = locksFirst
            ? Set(try connection.query(lockSQL, [attempts.map(\.lease.id), attempts.map(\.lease.attempt), worker])
                .map { try $0.decode("id", as: Int64.self) })
            : Set(attempts.map(\.lease.id))

        var outcomes: [Int64: JobOutcome] = [:]
        var grants: [(JobLease, GrantCandidate)] = []
        for attempt in attempts where held.contains(attempt.lease.id) {
            switch attempt.decision {
            case .result(let result): outcomes[attempt.lease.id] = JobOutcome(result)
            case .grant(let candidate): grants.append((attempt.lease, candidate))
            }
        }
        var unmatched = 0
        var purchaseKeys: [Int64: String] = [:]
        var reasons: [Int64: String] = [:]
        if !grants.isEmpty {
            let transactions = grants.map(\.1.transactionID)
            try connection.query(transactionLocksSQL, [transactions])
            var revoked: [String: String] = [:]
            for row in try connection.query(revokedSQL, [transactions]) {
                revoked[try row.decode("transaction_id")] = try row.decode("reason")
            }
            if !revoked.isEmpty {
                grants.removeAll { lease, candidate in
                    guard let reason = revoked[candidate.transactionID] else { return false }
                    outcomes[lease.id] = .rejected(reason: "refunded or revoked by Apple (\(reason), from its notification)")
                    return true
                }
            }
        }
        if !grants.isEmpty {
            for verdict in try RecordPurchases.run(grants.map { .init(lease: $0.0, candidate: $0.1) }, ownership: ownership,
                                                   now: now, on: connection) {
                let id = verdict.jobID
                purchaseKeys[id] = verdict.purchaseKey
                let reason = verdict.reason ?? ""
                switch verdict.result {
                case .granted:
                    outcomes[id] = .granted
                    if verdict.unmatched == true { unmatched += 1 }
                case .alreadyGranted:
                    outcomes[id] = .alreadyGranted
                    reasons[id] = reason
                case .ownedElsewhere: outcomes[id] = .ownedElsewhere(reason: reason)
                case .unproven: outcomes[id] = .resubmit(reason: reason)
                case .tokenRequired: outcomes[id] = .failed(reason: reason)
                }
            }
        }
        let planned = ApplySubmissionFacts.plan(attempts, outcomes: outcomes)
        let subscriptions = try ApplySubmissionFacts.run(planned, now: now, on: connection)
        var completions: [CompleteBatch.Completion] = []
        for attempt in attempts {
            guard let outcome = outcomes[attempt.lease.id] else { continue }
            var (completion, recorded) = resolve(attempt, outcome, lifecycle: lifecycle, now: now)
            completion.purchaseKey = purchaseKeys[attempt.lease.id]
            completion.reason = completion.reason ?? reasons[attempt.lease.id]
            completions.append(completion)
            outcomes[attempt.lease.id] = recorded
        }
        let written = try CompleteBatch.run(completions, worker: worker, on: connection)
        if locksFirst, !written.lostLease.isEmpty {
            // Impossible while the rows are locked above; refuse to commit half a batch.
            throw PostgresError(.server, "fenced completion changed under its row lock")
        }
        outcomes = outcomes.filter { written.completed.contains($0.key) }
        try AppendJobEvents.run(jobs: completions.filter { $0.state.isTerminal && written.completed.contains($0.id) }.map(\.id),
                                on: connection)
        try AppendEvents.run(subscriptions.events, on: connection)
        return Result(outcomes: outcomes, unmatchedGrants: unmatched,
                      lostLease: Set(attempts.map(\.lease.id)).subtracting(written.completed),
                      subscriptionFacts: subscriptions.applied, subscriptionChanges: subscriptions.changes,
                      subscriptionFactsSkipped: subscriptions.skipped)
    }

    /// The row `outcome` writes, by `JobLifecycle.next` from `verifying`; a retry whose budget
    /// is spent is recorded as `failed` with the budget's reason.
    static func resolve(_ attempt: FinishedAttempt, _ outcome: JobOutcome, lifecycle: JobLifecycle,
                        now: Date) -> (CompleteBatch.Completion, JobOutcome) {
        let lease = attempt.lease
        let facts = JobLifecycle.Facts(attempts: lease.attempt, createdAt: lease.budgetStart, boundedAnswers: lease.boundedAnswers)
        // Every outcome is an event of `verifying`; `next` is total there.
        let state = lifecycle.next(.verifying, on: outcome.event, facts: facts, now: now) ?? .failed
        var recorded = outcome
        var reason: String?, error: String?, delay: Int64?
        switch outcome {
        case .granted, .alreadyGranted, .release: break
        case .rejected(let why), .failed(let why), .resubmit(let why), .ownedElsewhere(let why): reason = why
        case .retry(let ms, let why), .timedOut(let ms, let why), .doubted(_, let ms, let why):
            if state == .failed, case .complete(let end) = outcome.event {
                reason = lifecycle.givingUpReason(end, facts: facts, lastError: why, now: now)
                recorded = .failed(reason: reason!)
            } else {
                delay = ms
                if case .doubted = outcome { recorded = .retry(delayMilliseconds: ms, error: why) }
            }
            error = why
        }
        let completion = CompleteBatch.Completion(
            id: lease.id, attempt: lease.attempt, state: state, delayMilliseconds: delay,
            givesBackAttempt: outcome == .release, appleStatus: attempt.appleStatus, appleEnvironment: attempt.appleEnvironment,
            reason: reason, error: error, boundedAnswer: attempt.boundedAnswer)
        return (completion, recorded)
    }
}
