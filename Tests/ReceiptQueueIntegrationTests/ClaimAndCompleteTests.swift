import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Claim and complete: leases, fencing, retries")
struct ClaimAndCompleteTests {
    @Test func claimTakesAtMostTheLimitOldestFirstAndLeasesThem() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let ids = try await fixture.queue.enqueue(QueueFixture.jobs(30)).map(\.id)
        let leases = try await fixture.queue.claim(limit: 10, worker: "w1", lease: .seconds(30))
        #expect(leases.count == 10)
        #expect(Set(leases.map(\.id)) == Set(ids.prefix(10)))
        #expect(leases.allSatisfy { $0.attempt == 1 && $0.lockedUntil > Date().addingTimeInterval(20) })
        let record = try #require(try await fixture.queue.job(id: leases[0].id))
        #expect(record.state == .verifying)
        #expect(record.lockedBy == "w1")
        #expect(try await fixture.queue.claim(limit: 100, worker: "w2", lease: .seconds(30)).count == 20)
        #expect(try await fixture.queue.claim(limit: 100, worker: "w3", lease: .seconds(30)).isEmpty)
    }

    @Test func jobsAreNotClaimedBeforeTheirRunAt() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        let result = try await fixture.queue.record([FinishedAttempt.ending(lease, .retry(delayMilliseconds: 60_000, error: "HTTP 503"))], worker: "w")
        #expect(result.completed == [lease.id])
        #expect(try await fixture.queue.claim(limit: 10, worker: "w", lease: .seconds(30)).isEmpty)
        let record = try #require(try await fixture.queue.job(id: lease.id))
        #expect(record.state == .queued)
        #expect(record.lastError == "HTTP 503")
        #expect(record.runAt > Date().addingTimeInterval(50))
    }

    /// A retry is due `run_at` after Apple's answer, behind every job already waiting; in a
    /// backlog it would wait for all of them. Jobs tried before go first, oldest due first, then
    /// the rest in order; one claim takes from both.
    @Test func aDueRetryIsClaimedBeforeTheBacklogThatWaitedLonger() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let ids = try await fixture.queue.enqueue(QueueFixture.jobs(10)).map(\.id)
        let first = try await fixture.queue.claim(limit: 2, worker: "w", lease: .seconds(30))
        _ = try await fixture.queue.record(first.map { FinishedAttempt.ending($0, .retry(delayMilliseconds: 0, error: "HTTP 503")) }, worker: "w")
        let backlog = try await fixture.queue.enqueue(QueueFixture.jobs(5, prefix: "later")).map(\.id)
        let next = try await fixture.queue.claim(limit: 4, worker: "w", lease: .seconds(30))
        let attempts = Dictionary(uniqueKeysWithValues: next.map { ($0.id, $0.attempt) })
        #expect(attempts == [ids[0]: 2, ids[1]: 2, ids[2]: 1, ids[3]: 1])
        // A retry not yet due waits; a fresh job does not wait behind it.
        let retried = try #require(next.first { $0.id == ids[0] })
        _ = try await fixture.queue.record([FinishedAttempt.ending(retried, .retry(delayMilliseconds: 60_000, error: "HTTP 503"))], worker: "w")
        let rest = try await fixture.queue.claim(limit: 100, worker: "w", lease: .seconds(30))
        #expect(Set(rest.map(\.id)) == Set(ids[4...] + backlog))
    }

    /// A sandbox receipt's retry starts at the sandbox: the claim hands back the environment the
    /// last attempt ended at (none before the first).
    @Test func aRetryIsClaimedWithTheEnvironmentItsLastAttemptEndedAt() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let first = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        #expect(first.appleEnvironment == nil)
        _ = try await fixture.queue.record([FinishedAttempt(lease: first, decision: .result(.retry(delayMilliseconds: 0, error: "HTTP 503")),
                                                            appleEnvironment: "Sandbox")], worker: "w")
        let retry = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        #expect(retry.appleEnvironment == "Sandbox")
    }

    @Test func eightConcurrentClaimersNeverHoldOneJobTwiceAndEveryJobEndsOnce() async throws {
        let fixture = try await QueueFixture.make(poolSize: 8)
        defer { fixture.shutdown() }
        let total = 20_000
        for chunk in stride(from: 0, to: total, by: 1000) {
            _ = try await fixture.queue.enqueue((chunk..<chunk + 1000).map {
                NewJob(receiptData: "r\($0)", transactionID: "t\($0)", userID: "u")
            })
        }
        let perClaimer = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for claimer in 0..<8 {
                group.addTask {
                    let worker = "claimer-\(claimer)"
                    var finished: [Int64] = []
                    while true {
                        let leases = try await fixture.queue.claim(limit: 50, worker: worker, lease: .seconds(120))
                        if leases.isEmpty { return finished }
                        let result = try await fixture.queue.record(leases.map { FinishedAttempt.granting($0) }, worker: worker)
                        #expect(result.lostLease.isEmpty)
                        finished += result.completed
                    }
                }
            }
            return try await group.reduce(into: [[Int64]]()) { $0.append($1) }
        }
        let all = perClaimer.flatMap { $0 }
        #expect(all.count == total)            // nothing claimed by two claimers (each claim completed once)
        #expect(Set(all).count == total)
        #expect(perClaimer.filter { !$0.isEmpty }.count > 1)   // the work really was shared
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted' AND attempts = 1 AND finished_at IS NOT NULL") == total)
    }

    @Test func completionWritesTheTerminalStateReasonAndAppleStatus() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(2))
        let leases = try await fixture.queue.claim(limit: 2, worker: "w", lease: .seconds(30))
        _ = try await fixture.queue.record([
            FinishedAttempt.ending(leases[0], .rejected(reason: "transaction not in receipt"), appleStatus: 0, appleEnvironment: "Production"),
            FinishedAttempt.ending(leases[1], .failed(reason: "gave up"), appleStatus: 21005, appleEnvironment: "Sandbox"),
        ], worker: "w")
        let rejected = try #require(try await fixture.queue.job(id: leases[0].id))
        #expect(rejected.state == .rejected)
        #expect(rejected.outcomeReason == "transaction not in receipt")
        #expect(rejected.appleStatus == 0)
        #expect(rejected.appleEnvironment == "Production")
        #expect(rejected.finishedAt != nil)
        #expect(rejected.lockedBy == nil)
        let failed = try #require(try await fixture.queue.job(id: leases[1].id))
        #expect(failed.state == .failed)
        #expect(failed.outcomeReason == "gave up")
        #expect(failed.appleEnvironment == "Sandbox")
    }

    @Test func lateCompletionAfterLeaseExpiryAndReclaimIsRefusedByTheFence() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let slow = try #require(try await fixture.queue.claim(limit: 1, worker: "slow-worker", lease: .milliseconds(200)).first)
        try await Task.sleep(for: .milliseconds(300))
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        #expect(try await scheduler.tick().requeuedExpiredLeases == 1)
        let retry = try #require(try await fixture.queue.claim(limit: 1, worker: "fast-worker", lease: .seconds(30)).first)
        #expect(retry.id == slow.id)
        #expect(retry.attempt == 2)
        let winner = try await fixture.queue.record([FinishedAttempt.ending(retry, .rejected(reason: "invalid receipt"))], worker: "fast-worker")
        #expect(winner.completed == [retry.id])
        // Apple finally answers the first attempt: too late, the fence refuses it.
        let late = try await fixture.queue.record([FinishedAttempt.granting(slow)], worker: "slow-worker")
        #expect(late.lostLease == [slow.id])
        #expect(late.completed.isEmpty)
        let record = try #require(try await fixture.queue.job(id: slow.id))
        #expect(record.state == .rejected)
        #expect(record.outcomeReason == "invalid receipt")
    }

    @Test func completionWhileTheRetryIsInFlightIsRefusedEvenForTheSameWorker() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let first = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .milliseconds(100)).first)
        try await Task.sleep(for: .milliseconds(200))
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        _ = try await scheduler.tick()
        let second = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        let stale = try await fixture.queue.record([FinishedAttempt.granting(first)], worker: "w")
        #expect(stale.lostLease == [first.id])   // same worker, older attempt: the attempt is the token
        #expect(try await fixture.state(of: second.id) == .verifying)
    }

    @Test func completionByAnotherWorkerIsRefused() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "owner", lease: .seconds(30)).first)
        let result = try await fixture.queue.record([FinishedAttempt.granting(lease)], worker: "intruder")
        #expect(result.lostLease == [lease.id])
        #expect(try await fixture.state(of: lease.id) == .verifying)
    }

    @Test func aBatchWithoutGrantsIsFencedRowByRowAndReportsOnlyWhatItWrote() async throws {
        // No grant in the batch: no lock statement first; the completion refuses the attempt it
        // does not hold, writes the others, and appends events for those alone.
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(3))
        let leases = try await fixture.queue.claim(limit: 3, worker: "w", lease: .seconds(30))
        var notHeld = leases[1]
        notHeld.attempt += 1   // an attempt the row is not at: another lease's answer
        let result = try await fixture.queue.record([
            FinishedAttempt.ending(leases[0], .rejected(reason: "not paid")),
            FinishedAttempt.ending(notHeld, .failed(reason: "gave up")),
            FinishedAttempt.ending(leases[2], .retry(delayMilliseconds: 0, error: "503")),
        ], worker: "w")
        #expect(result.lostLease == [notHeld.id])
        #expect(result.completed == [leases[0].id, leases[2].id])
        #expect(result.outcomes[notHeld.id] == nil)
        #expect(try await fixture.state(of: leases[0].id) == .rejected)
        #expect(try await fixture.state(of: notHeld.id) == .verifying)
        #expect(try await fixture.state(of: leases[2].id) == .queued)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.events WHERE job_id = ANY($1)", [leases.map(\.id)]) == 1)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.events WHERE job_id = $1 AND type = 'verdict.not_paid'",
                                        [leases[0].id]) == 1)
    }

    @Test func completionAfterExpiryButBeforeAnyoneRetookTheJobIsKept() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .milliseconds(50)).first)
        try await Task.sleep(for: .milliseconds(150))
        // Nobody else holds the job: the answer is still the newest, so it counts (no wasted re-verification).
        #expect(try await fixture.queue.record([FinishedAttempt.granting(lease)], worker: "w").completed == [lease.id])
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        #expect(try await scheduler.tick().requeuedExpiredLeases == 0)   // finished jobs are never requeued
        #expect(try await fixture.state(of: lease.id) == .granted)
    }

    @Test func releaseOnShutdownGivesTheAttemptBackAndRequeuesAtOnce() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(3))
        let leases = try await fixture.queue.claim(limit: 3, worker: "stopping", lease: .seconds(30))
        _ = try await fixture.queue.record(leases.map { FinishedAttempt.ending($0, .release) }, worker: "stopping")
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued' AND attempts = 0 AND locked_by IS NULL") == 3)
        #expect(try await fixture.queue.claim(limit: 3, worker: "next", lease: .seconds(30)).map(\.attempt) == [1, 1, 1])
    }

    @Test func timedOutJobWaitsForTheSchedulerThenIsClaimableAgain() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1))
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        _ = try await fixture.queue.record([FinishedAttempt.ending(lease, .timedOut(delayMilliseconds: 0, error: "no answer in 30 s"))], worker: "w")
        #expect(try await fixture.state(of: lease.id) == .timedOut)
        #expect(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).isEmpty)   // not before the scheduler
        let scheduler = Scheduler(database: try await fixture.database.configuration(as: .scheduler), logger: .init(label: "test"))
        #expect(try await scheduler.tick().requeuedTimedOut == 1)
        let again = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        #expect(again.attempt == 2)
    }

    @Test func terminalOutcomesNotifyResultsWithTheJobID() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let listener = PostgresListener(configuration: fixture.database.configuration, channels: ["receiptq_results"])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(3))
        let leases = try await fixture.queue.claim(limit: 3, worker: "w", lease: .seconds(30))
        _ = try await fixture.queue.record([
            FinishedAttempt.granting(leases[0]),
            FinishedAttempt.ending(leases[1], .retry(delayMilliseconds: 1000, error: "503")),   // not terminal: no result
            FinishedAttempt.ending(leases[2], .rejected(reason: "forged")),
        ], worker: "w")
        try await fixture.pool.query("SELECT pg_notify('receiptq_results', 'end-of-test')")
        var payloads: [String] = []
        while case .notification(let notification)? = await events.next(), notification.payload != "end-of-test" {
            payloads.append(notification.payload)
        }
        // One NOTIFY for the statement, listing the jobs it ended (comma-separated).
        #expect(payloads.count == 1)
        let named: Set<String> = Set(payloads.flatMap { payload in payload.split(separator: ",").map(String.init) })
        #expect(named == ["\(leases[0].id)", "\(leases[2].id)"])
    }

    @Test func aBatchOfAThousandEndsWithFourNotificationsEachUnderTheLimit() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let listener = PostgresListener(configuration: fixture.database.configuration, channels: ["receiptq_results"])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(1_000))
        let leases = try await fixture.queue.claim(limit: 1_000, worker: "w", lease: .seconds(30))
        _ = try await fixture.queue.record(leases.map { FinishedAttempt.ending($0, .rejected(reason: "forged")) }, worker: "w")
        try await fixture.pool.query("SELECT pg_notify('receiptq_results', 'end-of-test')")
        var payloads: [String] = []
        while case .notification(let notification)? = await events.next(), notification.payload != "end-of-test" {
            payloads.append(notification.payload)
        }
        #expect(payloads.count == 4, "300 ids per NOTIFY")
        #expect(payloads.allSatisfy { $0.utf8.count < 8_000 })
        let ids: [Int64] = payloads.flatMap { payload in payload.split(separator: ",").compactMap { Int64($0) } }
        let leased: Set<Int64> = Set(leases.map(\.id))
        #expect(ids.count == 1_000)
        #expect(Set(ids) == leased)
    }
}
