import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Each statement that moves history syncs agrees with `HistorySyncLifecycle.next`. (Recording a
/// page and queueing a sync again are the ownership code's, checked by `HistorySyncTests`.)
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

    /// The scheduler's tick rescues them as `RescueHistorySyncLeases` does, as its own role.
    @Test func schedulerRescuesHistorySyncLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test")).tick()
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
