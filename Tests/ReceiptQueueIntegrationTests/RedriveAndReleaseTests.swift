import Foundation
import Postgres
import ReceiptQueue
import Testing

/// The operators' commands move jobs as the lifecycle does: `receiptq redrive --failed-within`
/// (`RedriveFailedJobs.recentSQL`) and `receiptq release --worker` (`ReleaseWorkerLeases`).
@Suite("Operations: redrive and release agree with JobLifecycle")
struct RedriveAndReleaseTests {
    @Test func redriveFailedWithinMovesOnlyJobsThatFailedWithinTheWindow() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var ids: [String: Int64] = [:]
        for (name, state, finishedAgo) in [("recent", "failed", 3600), ("old", "failed", 30 * 86_400), ("rejected", "rejected", 60)] {
            ids[name] = try await fixture.pool.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, attempts, finished_at, outcome_reason)
                VALUES ('r-' || $1, 'tx-' || $1, 'u', $2, 7, now() - $3 * interval '1 second', 'why')
                RETURNING id
                """, [name, state, finishedAgo])[0].decode("id")
        }
        let moved = try await fixture.pool.withConnection { try RedriveFailedJobs.run(failedWithin: .seconds(86_400), on: $0) }
        #expect(moved == [ids["recent"]!])
        #expect(try await fixture.state(of: ids["recent"]!) == .queued)
        #expect(try await fixture.state(of: ids["old"]!) == .failed)
        #expect(try await fixture.state(of: ids["rejected"]!) == .rejected)
        let record = try #require(try await fixture.queue.job(id: ids["recent"]!))
        #expect(record.attempts == 0)
        #expect(record.lastError == "failed: why (re-driven)")
    }

    @Test func aDryRunShowsWhatWouldMoveAndMovesNothing() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let id: Int64 = try await fixture.pool.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, finished_at, outcome_reason)
            VALUES ('r', 'tx', 'u', 'failed', now(), 'why') RETURNING id
            """)[0].decode("id")
        let wouldMove = try await fixture.pool.withConnection { connection in
            try DryRun.run(on: connection) { try RedriveFailedJobs.run(failedWithin: .seconds(60), on: $0) }
        }
        #expect(wouldMove == [id])
        #expect(try await fixture.state(of: id) == .failed)
    }

    /// A poison job (it kills every worker that takes it) released by an operator counts its
    /// attempt like an expired lease: at its budget it ends failed, with its job.failed event,
    /// and never circulates again. Another worker's leases are left alone.
    @Test func releasingADeadWorkersLeasesNeverLetsAPoisonJobPastItsBudget() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let budget = RetryBudget(maxAttempts: 3, deadline: .seconds(3600))
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1, prefix: "poison"))
        var poison: Int64 = 0
        for attempt in 1...3 {
            let leases = try await fixture.queue.claim(limit: 1, worker: "dead-\(attempt)", lease: .seconds(600))
            poison = try #require(leases.first).id
            #expect(leases[0].attempt == attempt)
            let released = try await fixture.pool.transaction {
                try ReleaseWorkerLeases.run(worker: "dead-\(attempt)", budgets: .init(jobs: budget), on: $0)
            }
            #expect(released.jobsRequeued + released.jobsFailed.count == 1)
            #expect(released.jobsFailed == (attempt == 3 ? [poison] : []))
        }
        #expect(try await fixture.state(of: poison) == .failed)
        let reason = try await fixture.queue.job(id: poison)?.outcomeReason
        #expect(reason == "gave up: lease of attempt 3 released by an operator (worker dead-3)")
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.events WHERE job_id = $1 AND type = 'job.failed'", [poison]) == 1)
        // Another job, leased by a live worker, is not touched.
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1, prefix: "live"))
        let live = try #require(try await fixture.queue.claim(limit: 1, worker: "live", lease: .seconds(600)).first)
        #expect(live.id != poison)
        let none = try await fixture.pool.transaction { try ReleaseWorkerLeases.run(worker: "dead-1", on: $0) }
        #expect(none.total == 0)
        #expect(try await fixture.state(of: live.id) == .verifying)
    }
}
