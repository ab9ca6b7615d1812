import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Each statement that moves history syncs agrees with `HistorySyncLifecycle.next`. (Recording a
/// page is the ownership code's, checked by `HistorySyncTests`; who may ask for a sync too.)
@Suite("Lifecycle: the history sync statements agree with HistorySyncLifecycle.next")
struct HistorySyncAgreementTests {
    static let lifecycle = HistorySyncLifecycle()
    typealias Row = QueueAgreement<HistorySyncLifecycle>.Row<HistorySyncLease>

    /// Claims so far: budget left, attempts spent.
    static let budgets: [(String, Int)] = [("budget left", 1), ("attempts spent", lifecycle.maxAttempts)]

    /// One sync in every (state, budget), leased by "w" when syncing (lease and run_at past).
    static func rows(_ fixture: QueueFixture) async throws -> [Row] {
        var rows: [Row] = []
        for state in HistorySyncState.allCases {
            for (index, (budget, attempts)) in budgets.enumerated() {
                let original = "\(state.rawValue)-\(index)"
                try await fixture.pool.query("""
                    INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason, state, attempts, run_at, locked_by, locked_until)
                    VALUES ($1, 'Production', 'request', $2, $3, now() - interval '1 second',
                            CASE WHEN $4 THEN 'w' END, CASE WHEN $4 THEN now() - interval '1 second' END)
                    """, [original, state.rawValue, attempts, state == .syncing])
                let lease = HistorySyncLease(originalTransactionID: original, environment: "Production", attempt: attempts, userID: nil,
                                             revision: nil)
                rows.append(Row(key: lease, state: state, facts: .init(attempts: attempts), budget: budget))
            }
        }
        return rows
    }

    static func state(_ fixture: QueueFixture, _ lease: HistorySyncLease) async throws -> HistorySyncState? {
        HistorySyncState(rawValue: try await fixture.pool.query(
            "SELECT state FROM receiptq.history_syncs WHERE original_transaction_id = $1 AND environment = $2",
            [lease.originalTransactionID, lease.environment])[0].decode("state", as: String.self))
    }

    static func check(_ event: HistorySyncLifecycle.Event, _ statement: (QueueFixture, [Row]) async throws -> Void) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await rows(fixture)
        try await statement(fixture, rows)
        try await QueueAgreement(spec: lifecycle).expect(event, rows) { try await Self.state(fixture, $0) }
    }

    /// Asking for a sync again (`receiptq sync`, a restore) queues a finished one, and leaves a
    /// queued or running one as it is.
    @Test func queueHistorySyncAgain() async throws {
        try await Self.check(.request) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection {
                    try QueueHistorySync.run(originalTransactionID: row.key.originalTransactionID, environment: row.key.environment,
                                             userID: nil, reason: .request, on: $0)
                }
            }
        }
    }

    @Test func claimHistorySyncs() async throws {
        try await Self.check(.claim) { fixture, _ in
            _ = try await fixture.pool.withConnection { try ClaimHistorySyncs.run(limit: 100, worker: "claimer", lease: .seconds(30), on: $0) }
        }
    }

    @Test func finishHistorySyncSynced() async throws {
        try await Self.check(.complete(.synced)) { fixture, rows in
            for row in rows { _ = try await fixture.pool.withConnection { try FinishHistorySync.run(row.key, .synced, worker: "w", on: $0) } }
        }
    }

    @Test func finishHistorySyncFailed() async throws {
        try await Self.check(.complete(.failed)) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection { try FinishHistorySync.run(row.key, .failed("unknown"), worker: "w", on: $0) }
            }
        }
    }

    @Test func finishHistorySyncRetry() async throws {
        try await Self.check(.complete(.retry)) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection {
                    try FinishHistorySync.run(row.key, .retry(after: .zero, error: "Apple 5xx"), worker: "w", on: $0)
                }
            }
        }
    }

    @Test func rescueHistorySyncLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RescueHistorySyncLeases.run(limit: 100, maxAttempts: Self.lifecycle.maxAttempts, on: $0) }
        }
    }

    /// `receiptq release --worker` ends that worker's walks as an expired lease would, whether or
    /// not the lease ran out; another worker's walks stay leased.
    @Test func releaseByWorkerEndsItsWalksAsAnExpiredLease() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            // Leased until later, and by "w": only its release ends them.
            try await fixture.pool.query("UPDATE receiptq.history_syncs SET locked_until = now() + interval '1 hour' WHERE state = 'syncing'")
            let released = try await fixture.pool.transaction { try ReleaseWorkerLeases.run(worker: "w", on: $0) }
            #expect(released.historySyncs == Self.budgets.count)
            #expect(try await fixture.pool.transaction { try ReleaseWorkerLeases.run(worker: "someone-else", on: $0) }.historySyncs == 0)
        }
    }

    /// The scheduler's tick rescues them as `RescueHistorySyncLeases` does, as its own role.
    @Test func schedulerRescuesHistorySyncLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test")).tick()
        }
    }

    /// A walk that reached its last page ends the syncs of the customer's other original
    /// transactions as `.covered` says: queued ones never walked, not a vouched backfill, nothing else.
    @Test func aSyncedWalkCoversTheCustomersOtherSyncsAsTheSpecSays() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var rows = try await Self.rows(fixture)
        // Beside them: one queued sync already walked, one vouched backfill (the owner's login may write it).
        for (original, walked) in [("walked", true), ("vouched", false)] {
            try await fixture.pool.query("""
                INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason, user_id, state, pages, revision)
                VALUES ($1, 'Production', $2, $3, 'queued', $4, $5)
                """, [original, walked ? "request" : "backfill", walked ? nil : "player42", walked ? 1 : 0, walked ? "r0" : nil])
            rows.append(Row(key: HistorySyncLease(originalTransactionID: original, environment: "Production", attempt: 0, userID: nil, revision: nil),
                            state: .queued, facts: .init(attempts: 0, walked: walked, vouched: !walked), budget: original))
        }
        let walker = try #require(rows.first { $0.state == .syncing && $0.facts.attempts < Self.lifecycle.maxAttempts })
        let others = rows.filter { $0.key.originalTransactionID != walker.key.originalTransactionID }
        let state = try await fixture.pool.withConnection {
            try FinishHistorySync.run(walker.key, .synced, worker: "w", covering: Set(others.map(\.key.originalTransactionID)), revision: "r1", on: $0)
        }
        #expect(state == .synced)
        for row in others {
            let expected = Self.lifecycle.next(row.state, on: .covered, facts: row.facts, now: Date()) ?? row.state
            #expect(try await Self.state(fixture, row.key) == expected, "\(row.state.rawValue), \(row.budget)")
            let coveredBy: String? = try await fixture.pool.query("SELECT covered_by FROM receiptq.history_syncs WHERE original_transaction_id = $1",
                                                                  [row.key.originalTransactionID])[0].decodeIfPresent("covered_by")
            #expect(coveredBy == (expected != row.state ? walker.key.originalTransactionID : nil))
        }
    }

    /// Shutdown and a long walk's yield are not in the state machine: a walk handed back goes to the
    /// queue whatever its attempts, with the claim's attempt given back; nothing else moves.
    @Test(arguments: [FinishHistorySync.Ending.release, .yielded])
    func aWalkHandedBackIsQueuedWithItsAttemptGivenBack(ending: FinishHistorySync.Ending) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await Self.rows(fixture)
        for row in rows { _ = try await fixture.pool.withConnection { try FinishHistorySync.run(row.key, ending, worker: "w", on: $0) } }
        for row in rows {
            let stored = try await fixture.pool.query("""
                SELECT state, attempts FROM receiptq.history_syncs WHERE original_transaction_id = $1 AND environment = $2
                """, [row.key.originalTransactionID, row.key.environment])[0]
            let (state, attempts) = (try stored.decode("state", as: String.self), try stored.decode("attempts", as: Int.self))
            let expected = row.state == .syncing ? (HistorySyncState.queued, row.facts.attempts - 1) : (row.state, row.facts.attempts)
            #expect(state == expected.0.rawValue && attempts == expected.1, "\(ending) from \(row.state.rawValue), \(row.budget): \(state), \(attempts)")
        }
    }

    /// A lease is this worker's and this claim's: another worker, or an earlier claim of the same
    /// sync, ends nothing.
    @Test func finishingIsFencedByWorkerAndAttempt() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await Self.rows(fixture).filter { $0.state == .syncing }
        for row in rows {
            let stale = HistorySyncLease(originalTransactionID: row.key.originalTransactionID, environment: row.key.environment,
                                         attempt: row.key.attempt - 1, userID: nil, revision: nil)
            let other = try await fixture.pool.withConnection { try FinishHistorySync.run(row.key, .synced, worker: "someone-else", on: $0) }
            let earlier = try await fixture.pool.withConnection { try FinishHistorySync.run(stale, .synced, worker: "w", on: $0) }
            #expect(other == nil && earlier == nil)
            #expect(try await Self.state(fixture, row.key) == .syncing)
        }
    }
}
