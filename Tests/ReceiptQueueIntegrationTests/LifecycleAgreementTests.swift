import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Each statement that moves jobs agrees with `JobLifecycle.next`: a job in every state, with
/// its budget left, spent by attempts and spent by the deadline, is put through the statement,
/// and the state it is left in is the one `next` names (or unchanged where `next` says the event
/// cannot happen).
@Suite("Lifecycle: the SQL agrees with JobLifecycle.next")
struct LifecycleAgreementTests {
    static let budget = RetryBudget(maxAttempts: 10, deadline: .seconds(3600))
    static let lifecycle = JobLifecycle(budget: budget, doubtWindow: .seconds(1800), secretMismatchAttempts: 3)

    /// A job's budget situation: claims so far, age, earlier 21004 answers.
    enum Budget: CaseIterable {
        case left, spentByAttempts, spentByDeadline, doubtedTooLong, refusedTooOften
        var attempts: Int { self == .spentByAttempts ? 10 : 1 }
        var age: Duration {
            switch self {
            case .spentByDeadline: .seconds(7200)
            case .doubtedTooLong: .seconds(2400)
            default: .seconds(60)
            }
        }
        var boundedAnswers: Int { self == .refusedTooOften ? 2 : 0 }
    }

    struct Row {
        var id: Int64
        var state: JobState
        var budget: Budget
        var createdAt: Date
        var transactionID: String
        var lease: JobLease { JobLease(id: id, attempt: budget.attempts, receiptData: "r", transactionID: transactionID, userID: "u",
                                       productID: "p", orderID: nil, createdAt: createdAt, lockedUntil: Date(),
                                       boundedAnswers: budget.boundedAnswers) }
        var facts: JobLifecycle.Facts { .init(attempts: budget.attempts, createdAt: createdAt, boundedAnswers: budget.boundedAnswers) }
    }

    /// One job in every (state, budget), leased by "w" when verifying (lease and run_at past).
    static func rows(_ fixture: QueueFixture) async throws -> [Row] {
        var rows: [Row] = []
        for state in JobState.allCases {
            for budget in Budget.allCases {
                let transaction = "\(state.rawValue)-\(budget)"
                let verifying = state == .verifying
                // A job that says granted points at its ledger row (jobs_grant_check).
                let heldKey: String? = [.granted, .alreadyGranted].contains(state) ? "held:" + transaction : nil
                if let heldKey {
                    try await fixture.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", [transaction, "u"])
                    try await fixture.pool.query("""
                        INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment,
                                                     purchase_key)
                        VALUES ($1, $1, 0, 'u', 'p', 'Production', $2)
                        """, [transaction, heldKey])
                }
                let row = try await fixture.pool.query("""
                    INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, run_at,
                                               locked_by, locked_until, finished_at, created_at, last_error, purchase_key, bounded_answers)
                    VALUES ('r-' || $1, $1, 'u', 'p', $2, $3, now() - interval '1 second',
                            CASE WHEN $4 THEN 'w' END, CASE WHEN $4 THEN now() - interval '1 second' END,
                            CASE WHEN $5 THEN now() END, now() - $6 * interval '1 millisecond', 'earlier error', $7, $8)
                    RETURNING id, created_at
                    """, [transaction, state.rawValue, budget.attempts, verifying, state.isTerminal, budget.age.milliseconds,
                          heldKey, budget.boundedAnswers])[0]
                rows.append(Row(id: try row.decode("id"), state: state, budget: budget, createdAt: try row.decode("created_at"),
                                transactionID: transaction))
            }
        }
        return rows
    }

    /// Runs `statement` over fresh rows and checks every row against `next(state, event)`.
    static func check(_ event: JobEvent, _ statement: (QueueFixture, [Row]) async throws -> Void) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await rows(fixture)
        try await statement(fixture, rows)
        let now = Date()
        for row in rows {
            let expected = lifecycle.next(row.state, on: event, facts: row.facts, now: now) ?? row.state
            let actual = try await fixture.state(of: row.id)
            #expect(actual == expected, "\(event) from \(row.state) with budget \(row.budget): \(String(describing: actual))")
        }
    }

    /// Pruning agrees with the lifecycle: each retention class deletes finished jobs of its own
    /// states, never a job still in the queue or of another class.
    @Test(arguments: PruneFinishedJobs.Outcomes.allCases)
    func pruneFinishedJobs(_ outcomes: PruneFinishedJobs.Outcomes) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await Self.rows(fixture)
        try await Task.sleep(for: .milliseconds(20))                   // every finished row is older than the retention
        let pruned = try await fixture.pool.withConnection {
            try PruneFinishedJobs.run(outcomes, retention: .milliseconds(1), limit: 10_000, on: $0)
        }
        #expect(pruned == rows.filter { outcomes.states.contains($0.state) }.count)
        for row in rows {
            let gone = try await fixture.state(of: row.id) == nil
            #expect(gone == outcomes.states.contains(row.state), "\(outcomes) pruned a job in \(row.state): \(gone)")
        }
    }

    /// Every terminal state has exactly one retention: none is kept for ever by omission.
    @Test func everyTerminalStateHasOneRetention() {
        let covered = PruneFinishedJobs.Outcomes.allCases.flatMap(\.states)
        #expect(Set(covered) == Set(JobState.allCases.filter(\.isTerminal)))
        #expect(covered.count == Set(covered).count)
    }

    @Test func claimBatch() async throws {
        try await Self.check(.claim) { fixture, _ in
            _ = try await fixture.queue.claim(limit: 100, worker: "claimer", lease: .seconds(30))
        }
    }

    @Test(arguments: [AttemptEnd.rejected, .failed, .resubmit, .retry, .receiptDoubted, .secretRefused, .timedOut])
    func recordOutcomes(_ end: AttemptEnd) async throws {
        let result: AttemptResult = switch end {
        case .rejected: .rejected(reason: "r")
        case .failed: .failed(reason: "f")
        case .resubmit: .resubmit(reason: "s")
        case .retry: .retry(delayMilliseconds: 0, error: "e")
        case .receiptDoubted: .doubted(.receipt, delayMilliseconds: 0, error: "e")
        case .secretRefused: .doubted(.sharedSecret, delayMilliseconds: 0, error: "e")
        case .timedOut: .timedOut(delayMilliseconds: 0, error: "e")
        case .granted, .alreadyGranted, .ownedElsewhere: fatalError("ledger outcomes are checked below")
        }
        try await Self.check(.complete(end)) { fixture, rows in
            let queue = JobQueue(pool: fixture.pool, lifecycle: Self.lifecycle)
            _ = try await queue.record(rows.map { .ending($0.lease, result) }, worker: "w")
        }
    }

    @Test func recordOutcomesGranted() async throws {
        try await Self.check(.complete(.granted)) { fixture, rows in
            _ = try await JobQueue(pool: fixture.pool, lifecycle: Self.lifecycle).record(rows.map { .granting($0.lease) }, worker: "w")
        }
    }

    @Test func recordOutcomesAlreadyGranted() async throws {
        try await Self.check(.complete(.alreadyGranted)) { fixture, rows in
            for row in rows {
                try await fixture.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", [row.transactionID, "u"])
                try await fixture.pool.query("""
                    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment,
                                                 purchase_key)
                    VALUES ($1, $1, 0, 'u', 'p', 'Production', 'purchase:' || $1)
                    """, [row.transactionID])
            }
            _ = try await JobQueue(pool: fixture.pool, lifecycle: Self.lifecycle).record(rows.map { .granting($0.lease) }, worker: "w")
        }
    }

    @Test func recordOutcomesOwnedElsewhere() async throws {
        try await Self.check(.complete(.ownedElsewhere)) { fixture, rows in
            for row in rows {
                try await fixture.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", [row.transactionID, "someone-else"])
                try await fixture.pool.query("""
                    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment,
                                                 purchase_key)
                    VALUES ($1, $1, 0, (SELECT user_id FROM receiptq.owners WHERE original_transaction_id = $1), 'p', 'Production',
                            'purchase:' || $1)
                    """, [row.transactionID])
            }
            _ = try await JobQueue(pool: fixture.pool, lifecycle: Self.lifecycle).record(rows.map { .granting($0.lease) }, worker: "w")
        }
    }

    @Test func recordOutcomesRelease() async throws {
        try await Self.check(.release) { fixture, rows in
            _ = try await JobQueue(pool: fixture.pool, lifecycle: Self.lifecycle).record(rows.map { .ending($0.lease, .release) }, worker: "w")
        }
    }

    @Test func rescueExpiredLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RescueExpiredLeases.run(limit: 100, budget: Self.budget, on: $0) }
        }
    }

    /// `receiptq release --worker`: a dead worker's leases end as expired ones do.
    @Test func releaseWorkerLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.transaction { try ReleaseWorkerLeases.run(worker: "w", budgets: .init(jobs: Self.budget), on: $0) }
        }
    }

    @Test func requeueTimedOut() async throws {
        try await Self.check(.timedOutDue) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RequeueTimedOut.run(limit: 100, budget: Self.budget, on: $0) }
        }
    }

    @Test func redriveFailedJobs() async throws {
        try await Self.check(.redrive) { fixture, rows in
            _ = try await fixture.pool.withConnection { try RedriveFailedJobs.run(ids: rows.map(\.id), on: $0) }
        }
    }

    @Test func discardJobs() async throws {
        try await Self.check(.discard) { fixture, rows in
            _ = try await fixture.pool.withConnection { try DiscardJobs.run(ids: rows.map(\.id), reason: "spam", on: $0) }
        }
    }

    @Test func aRedrivenJobHasAFreshBudget() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await Self.rows(fixture)
        let failed = rows.filter { $0.state == .failed }.map(\.id)
        #expect(try await fixture.pool.withConnection { try RedriveFailedJobs.run(ids: failed, on: $0) }.sorted() == failed.sorted())
        let leases = try await fixture.queue.claim(limit: 100, worker: "again", lease: .seconds(30)).filter { failed.contains($0.id) }
        #expect(leases.count == failed.count)
        for lease in leases {
            #expect(lease.attempt == 1)
            #expect(!Self.budget.isSpent(attempts: lease.attempt, createdAt: lease.budgetStart, now: Date()))
        }
    }
}

@Suite("Lifecycle: the schema agrees with JobState")
struct SchemaAgreementTests {
    /// The quoted words of an SQL expression, e.g. the states in an IN list.
    static func quoted(_ text: String) -> Set<String> {
        Set(text.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    @Test func theStateCheckAndTheFinishedIndexNameExactlyTheStatesAndTheTerminalOnes() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let check = try await fixture.pool.query("""
            SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'jobs_state_check'
            """)[0].decode("definition", as: String.self)
        #expect(Self.quoted(check) == Set(JobState.allCases.map(\.rawValue)))
        let finished = try await fixture.pool.query("""
            SELECT pg_get_expr(i.indpred, i.indrelid) AS predicate
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'jobs_finished_idx'
            """)[0].decode("predicate", as: String.self)
        #expect(Self.quoted(finished) == Set(JobState.allCases.filter(\.isTerminal).map(\.rawValue)))
        let finishedCheck = try await fixture.pool.query("""
            SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'jobs_finished_check'
            """)[0].decode("definition", as: String.self)
        #expect(Self.quoted(finishedCheck) == Set(JobState.allCases.filter(\.isTerminal).map(\.rawValue)))
    }
}
