import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Scheduler: rescue, requeue, prune, one leader")
struct SchedulerTests {
    @Test func claimerKilledWithSIGKILLHasItsJobsFinishedByAnotherAfterTheLease() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let ids = try await fixture.queue.enqueue(QueueFixture.jobs(40)).map(\.id)
        let doomed = try ChildProcess(ReceiptQBinary.lab, arguments: ["claim-and-hang", "--limit", "25", "--lease", "1500ms",
                                                  "--database-url", try await fixture.database.connectionString(as: .worker)])
        #expect(await eventually(timeout: .seconds(20)) { doomed.stdout.contains("claimed 25") }, "claimer said: \(doomed.stderr)")
        doomed.kill(SIGKILL)
        await doomed.wait(timeout: .seconds(5))

        let survivor = "survivor"
        let first = try await fixture.queue.claim(limit: 100, worker: survivor, lease: .seconds(30))
        let finished = Set(first.map(\.id))
        #expect(finished.count == 15)   // the dead claimer's 25 stay leased until the lease runs out
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        let rescued = try await eventually(timeout: .seconds(10), every: .milliseconds(200)) {
            try await scheduler.tick().requeuedExpiredLeases == 25
        }
        #expect(rescued)
        let retaken = try await fixture.queue.claim(limit: 100, worker: survivor, lease: .seconds(30))
        #expect(retaken.count == 25 && retaken.allSatisfy { $0.attempt == 2 })
        let all = try await fixture.queue.claim(limit: 0, worker: survivor, lease: .seconds(30))
        #expect(all.isEmpty)
        let everything = Set(retaken.map(\.id)).union(finished)
        #expect(everything == Set(ids))   // nothing lost
        #expect(try await fixture.queue.record((first + retaken).map { .granting($0) }, worker: survivor).completed.count == 40)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 40)
    }

    @Test func jobWhoseLeasesKeepExpiringFailsOnceItsAttemptsAreSpent() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let id = try await fixture.queue.enqueue(QueueFixture.jobs(1))[0].id
        var configuration = Scheduler.Configuration()
        configuration.budget.maxAttempts = 2
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), configuration: configuration, logger: .init(label: "test"))
        for _ in 0..<2 {
            _ = try await fixture.queue.claim(limit: 1, worker: "crashing-worker", lease: .seconds(30))
            try await fixture.expireLeases()
            _ = try await scheduler.tick()
        }
        let record = try #require(try await fixture.queue.job(id: id))
        #expect(record.state == .failed)   // kept for ops, never deleted, never circulating forever
        #expect(record.outcomeReason?.contains("lease of attempt 2 expired") == true)
    }

    @Test func schedulerGivesUpOnTimedOutJobsPastTheDeadline() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let id = try await fixture.queue.enqueue(QueueFixture.jobs(1))[0].id
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        _ = try await fixture.queue.record([FinishedAttempt.ending(lease, .timedOut(delayMilliseconds: 0, error: "timeout"))], worker: "w")
        try await fixture.pool.query("UPDATE receiptq.jobs SET created_at = now() - interval '73 hours' WHERE id = $1", [id])
        let tick = try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test")).tick()
        #expect(tick.failed == 1)
        #expect(try await fixture.state(of: id) == .failed)
    }

    @Test func pruningDeletesOnlyFinishedJobsPastRetentionAndNeverGrants() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let ids = try await fixture.queue.enqueue(QueueFixture.jobs(4)).map(\.id)
        let leases = try await fixture.queue.claim(limit: 3, worker: "w", lease: .seconds(30)).sorted { $0.id < $1.id }
        _ = try await fixture.queue.record(leases.prefix(2).map { FinishedAttempt.granting($0) }, worker: "w")
        // Everything is old: two finished, one verifying, one queued.
        try await fixture.pool.query("UPDATE receiptq.jobs SET created_at = now() - interval '90 days', finished_at = finished_at - interval '90 days'")
        var configuration = Scheduler.Configuration()
        configuration.retention = .seconds(30 * 86_400)
        let tick = try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), configuration: configuration, logger: .init(label: "test")).tick()
        #expect(tick.pruned == 2)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 2)   // unfinished receipts are never pruned
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants") == 2)   // the ledger is never pruned
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE id = ANY($1)", [Array(ids[2...])]) == 2)
        // A pruned job's dedupe key goes with it: the same receipt submitted again is a new job;
        // an unpruned one's stays, and its resubmission gets the existing job back.
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.receipt_submissions") == 2)
        let again = try await fixture.queue.enqueue(QueueFixture.jobs(4))
        #expect(again.map(\.created) == [true, true, false, false])
        #expect(Array(again.map(\.id)[2...]) == Array(ids[2...]))
        #expect(Set(again.prefix(2).map(\.id)).isDisjoint(with: ids), "new jobs, not the pruned ones")
    }

    @Test func pruningATransactionIDJobFreesItsDedupeKeyForTheNextSubmission() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let first = try await fixture.queue.enqueue([NewJob.transactionID("2000000000000001", userID: "u1")])[0]
        #expect(try await fixture.queue.enqueue([NewJob.transactionID("2000000000000001", userID: "u1")])[0].id == first.id)
        let lease = try #require(try await fixture.queue.claim(limit: 1, kind: .transactionID, worker: "w", lease: .seconds(30)).first)
        _ = try await fixture.queue.record([FinishedAttempt.ending(lease, .rejected(reason: "not found"))], worker: "w")
        try await fixture.pool.query("UPDATE receiptq.jobs SET created_at = now() - interval '400 days', finished_at = now() - interval '400 days'")
        let tick = try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test")).tick()
        #expect(tick.pruned == 1)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.transaction_submissions") == 0)
        let again = try await fixture.queue.enqueue([NewJob.transactionID("2000000000000001", userID: "u1")])[0]
        #expect(again.created && again.id != first.id)
    }

    /// `receiptq.subscription_corrections` is an audit that grew forever: the scheduler (its own
    /// role) deletes rows past `--correction-retention` (90 days by default), and nothing younger.
    @Test func pruningDeletesSubscriptionCorrectionsPastTheirRetentionOnly() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await fixture.pool.query("""
            INSERT INTO receiptq.subscription_corrections (original_transaction_id, environment, source, fields, corrected_at)
            SELECT 'o' || g, 'Production', 'status_check', ARRAY['status'], now() - g * interval '1 day'
            FROM unnest(ARRAY[1, 30, 89, 91, 120, 400]) AS g
            """)
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        #expect(scheduler.configuration.correctionRetention == .seconds(90 * 86_400))
        #expect(try await scheduler.tick().prunedCorrections == 3)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.subscription_corrections") == 3)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.subscription_corrections WHERE corrected_at < now() - interval '90 days'") == 0)
        // Kept forever when asked (0s on the command line), and a retention under the view's 24 h is refused, naming the flag.
        var forever = Scheduler.Configuration()
        forever.correctionRetention = nil
        try await fixture.pool.query("UPDATE receiptq.subscription_corrections SET corrected_at = now() - interval '1000 days'")
        #expect(try await Scheduler(database: try await fixture.database.configuration(as: .scheduler), configuration: forever,
                                    logger: .init(label: "test")).tick().prunedCorrections == 0)
        var tooShort = Scheduler.Configuration()
        tooShort.correctionRetention = .seconds(3600)
        #expect { try tooShort.validate() } throws: { "\($0)".contains("--correction-retention") }
    }

    @Test func onlyOneSchedulerLeadsAndAStandbyTakesOverWhenTheLeaderIsKilled() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let arguments = ["scheduler", "--interval", "300ms", "--database-url", try await fixture.database.connectionString(as: .scheduler)]
        let first = try ChildProcess(arguments: arguments)
        let second = try ChildProcess(arguments: arguments)
        defer { first.kill(); second.kill() }

        /// The OS pid of the scheduler process whose session holds the leadership lock.
        func leaderPID() async throws -> Int32? {
            let rows = try await fixture.pool.query("""
                SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::int::oid AND l.objid = $2::int::oid
                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """, [SchedulerLeadership.lockKey.0, SchedulerLeadership.lockKey.1])
            #expect(rows.count <= 1)
            return rows.first.flatMap { $0["application_name"]?.split(separator: "-").last.flatMap { Int32($0) } }
        }
        var leader: Int32?
        #expect(try await eventually(timeout: .seconds(20)) { leader = try await leaderPID(); return leader != nil })
        let standby = leader == first.pid ? second : first
        let killed = leader == first.pid ? first : second
        #expect([first.pid, second.pid].contains(leader ?? -1))

        // The leader acts: an expired lease is requeued.
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        _ = try await fixture.queue.claim(limit: 1, worker: "dead", lease: .milliseconds(1))
        #expect(try await eventually(timeout: .seconds(10)) { try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued'") == 1 })

        killed.kill(SIGKILL)
        await killed.wait(timeout: .seconds(5))
        #expect(try await eventually(timeout: .seconds(10)) { try await leaderPID() == standby.pid })
        // …and the new leader acts too.
        _ = try await fixture.queue.claim(limit: 1, worker: "dead-again", lease: .milliseconds(1))
        #expect(try await eventually(timeout: .seconds(10)) { try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued'") == 1 })

        standby.kill(SIGTERM)
        #expect(await standby.wait(timeout: .seconds(10)) == 0)   // graceful stop exits 0
    }
}
