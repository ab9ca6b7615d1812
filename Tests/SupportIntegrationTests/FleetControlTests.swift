import Foundation
import Logging
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Support
import Testing
import Worker

/// Fleet pause and resume (workers read the switch on every claim), live workers (heartbeats),
/// and support's discards and re-drives through the queues' own lifecycle statements, audited.
@Suite("Support: pause the fleet, see live workers, discard and re-drive")
struct FleetControlTests {
    @Test func whilePausedAWorkerClaimsNothingAndAfterResumeItDoes() async throws {
        try await withSupportFixture { fixture in
            let worker = PostgresPool(configuration: try await fixture.database.configuration(as: .worker), size: 1)
            defer { worker.shutdown() }
            _ = try await JobQueue(pool: fixture.owner).enqueue([NewJob(receiptData: "cg==", transactionID: "t1", userID: "u1")])
            let (paused, pauseAudit) = try await fixture.operations.setPaused(true, SupportFixture.action("rotating the shared secret"))
            #expect(paused.paused && paused.changedBy == "alice")
            #expect(try await JobQueue(pool: worker).claim(limit: 10, worker: "w1", lease: .seconds(30)).isEmpty)
            let (resumed, resumeAudit) = try await fixture.operations.setPaused(false, SupportFixture.action("secret rotated"))
            #expect(!resumed.paused)
            #expect(try await JobQueue(pool: worker).claim(limit: 10, worker: "w1", lease: .seconds(30)).count == 1)
            #expect(try await fixture.audit(pauseAudit).action == "fleet.pause")
            let resume = try await fixture.audit(resumeAudit)
            #expect(resume.action == "fleet.resume" && resume.subject == "fleet" && resume.before == "{\"paused\": true}")
        }
    }

    @Test func aWorkersHeartbeatMakesItLiveItsStopRemovesItAndSilenceMakesItStale() async throws {
        try await withSupportFixture { fixture in
            let pool = PostgresPool(configuration: try await fixture.database.configuration(as: .worker), size: 1)
            defer { pool.shutdown() }
            // Live means a beat within three intervals: 100 ms read not live once on a loaded CI
            // machine (a beat 300 ms late); 1 s leaves room and the wait below still covers the first.
            let heartbeat = WorkerHeartbeat(worker: "w-beat", interval: .seconds(1), pool: pool, logger: Logger(label: "test"))
            let task = Task { try await heartbeat.run() }
            var workers: [WorkerHeartbeats.Worker] = []
            for _ in 0..<50 where workers.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                workers = try await fixture.operations.workers()
            }
            #expect(workers.map(\.worker) == ["w-beat"] && workers.first?.live == true)
            task.cancel()
            _ = try? await task.value
            #expect(try await fixture.operations.workers().isEmpty, "a stopped worker leaves the list")
            // A worker that died without a word: its last beat grows old, and it reads not live.
            try await pool.withConnection { try WorkerHeartbeats.beat(worker: "w-dead", host: "h", pid: 1, interval: .seconds(5), on: $0) }
            try await fixture.owner.query("UPDATE receiptq.worker_heartbeats SET beat_at = now() - interval '16 seconds'")
            #expect(try await fixture.operations.workers().map(\.live) == [false])
        }
    }

    @Test func discardGivesUpQueuedJobsWithTheirEventsAndLeavesOthersAlone() async throws {
        try await withSupportFixture { fixture in
            let ids = try await JobQueue(pool: fixture.owner).enqueue([
                NewJob(receiptData: "YQ==", transactionID: "t1", userID: "u1"), NewJob(receiptData: "Yg==", transactionID: "t2", userID: "u2"),
            ]).map(\.id)
            try await fixture.owner.query("UPDATE receiptq.jobs SET state = 'verifying', locked_by = 'w', locked_until = now() + interval '1 minute' WHERE id = $1",
                                          [ids[1]])
            let moved = try await fixture.operations.discardJobs(ids: ids, SupportFixture.action("test purchase from QA"))
            #expect(moved.ids == [ids[0]])
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1 AND state = 'failed' AND outcome_reason LIKE 'discarded by ops: test purchase%'", [ids[0]]) == 1)
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1 AND state = 'verifying'", [ids[1]]) == 1)
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.events WHERE type = 'job.failed' AND job_id = $1", [ids[0]]) == 1)
            let audit = try await fixture.audit(try #require(moved.audit))
            #expect(audit.action == "jobs.discard" && audit.subject == "job:\(ids[0])")
            // Discarded is failed: re-drivable, audited again.
            let redriven = try await fixture.operations.redriveJobs(ids: [ids[0]], failedWithin: nil, SupportFixture.action("was real after all"))
            #expect(redriven.ids == [ids[0]])
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1 AND state = 'queued'", [ids[0]]) == 1)
            #expect(try await fixture.audit(try #require(redriven.audit)).action == "jobs.redrive")
        }
    }

    @Test func nothingMovedWritesNoAuditRow() async throws {
        try await withSupportFixture { fixture in
            let moved = try await fixture.operations.redriveJobs(ids: [12345], failedWithin: nil, SupportFixture.action())
            #expect(moved.ids.isEmpty && moved.audit == nil)
            let deliveries = try await fixture.operations.redriveDeliveries(endpoint: nil, SupportFixture.action())
            #expect(deliveries.audit == nil)
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit") == 0)
        }
    }
}
