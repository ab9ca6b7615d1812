import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// `receiptq.claimable_work`, what KEDA scales the workers on (Deploy/kubernetes/scaledobject.yaml):
/// the jobs due now, and 0 while Apple is failing — recent attempts ending in retries and
/// timeouts, with Apple answering few or none — so an outage does not scale workers out into it.
/// Read as KEDA reads it: through a `receiptq_readonly` login, with the ScaledObject's query.
@Suite("Claimable work: KEDA's target is the due work, and 0 during an Apple outage")
struct ClaimableWorkTests {
    /// The ScaledObject's query (Deploy/kubernetes/scaledobject.yaml).
    static let kedaQuery = "SELECT claimable FROM receiptq.claimable_work"

    struct Reading: Equatable {
        var due: Int
        var failedLastMinute: Int
        var answeredLastMinute: Int
        var appleFailing: Bool
        var claimable: Int
    }

    /// The view's row, read by a readonly login (KEDA's), and KEDA's own query beside it.
    static func read(_ readonly: PostgresPool) async throws -> Reading {
        let row = try await readonly.query("SELECT * FROM receiptq.claimable_work")[0]
        let reading = Reading(due: try row.decode("due"), failedLastMinute: try row.decode("failed_last_minute"),
                              answeredLastMinute: try row.decode("answered_last_minute"),
                              appleFailing: try row.decode("apple_failing"), claimable: try row.decode("claimable"))
        #expect(try await readonly.query(kedaQuery)[0].decode("claimable", as: Int.self) == reading.claimable)
        return reading
    }

    /// What the previous ScaledObject query read: every queued job, due or not.
    static func queuedDepth(_ fixture: QueueFixture) async throws -> Int {
        try await fixture.count("SELECT coalesce(sum(jobs), 0)::bigint AS count FROM receiptq.queue_depth WHERE state = 'queued'")
    }

    /// A grant as a worker records Apple's answer: with the environment Apple verified it in.
    static func answered(_ lease: JobLease) -> FinishedAttempt {
        var attempt = FinishedAttempt.granting(lease)
        attempt.appleStatus = 0
        attempt.appleEnvironment = "Production"
        return attempt
    }

    @Test func dueWorkIsClaimable() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let readonly = PostgresPool(configuration: try await fixture.database.configuration(as: .readonly), size: 1)
        defer { readonly.shutdown() }
        #expect(try await Self.read(readonly) == Reading(due: 0, failedLastMinute: 0, answeredLastMinute: 0, appleFailing: false, claimable: 0))

        _ = try await fixture.queue.enqueue(QueueFixture.jobs(30))
        #expect(try await Self.read(readonly) == Reading(due: 30, failedLastMinute: 0, answeredLastMinute: 0, appleFailing: false, claimable: 30))
    }

    @Test func delayedWorkIsNotClaimable() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let readonly = PostgresPool(configuration: try await fixture.database.configuration(as: .readonly), size: 1)
        defer { readonly.shutdown() }
        // 20 jobs waiting out a backoff that began long ago (not a recent failure), 5 due.
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(20, prefix: "later"))
        try await fixture.pool.query("""
            UPDATE receiptq.jobs SET run_at = now() + interval '10 minutes', attempts = 1, last_error = 'HTTP 503',
                                     updated_at = now() - interval '5 minutes'
            """)
        #expect(try await Self.read(readonly) == Reading(due: 0, failedLastMinute: 0, answeredLastMinute: 0, appleFailing: false, claimable: 0))
        #expect(try await Self.queuedDepth(fixture) == 20)   // the old query scaled for these

        _ = try await fixture.queue.enqueue(QueueFixture.jobs(5, prefix: "now"))
        #expect(try await Self.read(readonly).claimable == 5)
    }

    @Test func anAppleOutageReadsZeroWhateverIsDueAndRecoveryReadsTheDueWorkAgain() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let readonly = PostgresPool(configuration: try await fixture.database.configuration(as: .readonly), size: 1)
        defer { readonly.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(60))

        // A degraded Apple, not a down one: a few failures alone are not an outage.
        let few = try await fixture.queue.claim(limit: 5, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(few.map { FinishedAttempt.ending($0, .retry(delayMilliseconds: 0, error: "HTTP 503")) }, worker: "w1")
        #expect(try await Self.read(readonly) == Reading(due: 60, failedLastMinute: 5, answeredLastMinute: 0, appleFailing: false, claimable: 60))

        // The outage: every attempt fails (503s and timeouts), the breakers open, the workers stop
        // claiming. The backoffs run out while Apple is still down: all 60 are due again. (Jobs
        // tried before are claimed first: the 5 fail again, with 10 more, 15 jobs in all.)
        let outage = try await fixture.queue.claim(limit: 15, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(outage.enumerated().map { index, lease in
            index % 2 == 0 ? FinishedAttempt.ending(lease, .retry(delayMilliseconds: 0, error: "HTTP 503"))
                           : FinishedAttempt.ending(lease, .timedOut(delayMilliseconds: 0, error: "Apple did not answer in time"))
        }, worker: "w1")
        try await fixture.pool.query("UPDATE receiptq.jobs SET state = 'queued' WHERE state = 'timed_out'")   // the scheduler's requeue
        let during = try await Self.read(readonly)
        #expect(during == Reading(due: 60, failedLastMinute: 15, answeredLastMinute: 0, appleFailing: true, claimable: 0))
        #expect(try await Self.queuedDepth(fixture) == 60)   // the old query scaled out into the outage

        // A timed-out job not yet requeued by the scheduler counts as a failure too (a fresh one:
        // the retried jobs are held back for this claim, as they would be claimed first).
        try await fixture.pool.query("UPDATE receiptq.jobs SET run_at = now() + interval '1 minute' WHERE attempts > 0")
        let probe = try await fixture.queue.claim(limit: 1, worker: "w1", lease: .seconds(30))
        try await fixture.pool.query("UPDATE receiptq.jobs SET run_at = now() WHERE attempts > 0 AND state = 'queued'")
        _ = try await fixture.queue.record(probe.map { FinishedAttempt.ending($0, .timedOut(delayMilliseconds: 60_000, error: "Apple did not answer in time")) }, worker: "w1")
        #expect(try await Self.read(readonly) == Reading(due: 59, failedLastMinute: 16, answeredLastMinute: 0, appleFailing: true, claimable: 0))

        // Apple is back: the probes are answered, then the backlog. Answers outnumber the
        // failures of the last minute, and the due work is claimable again.
        let back = try await fixture.queue.claim(limit: 30, worker: "w2", lease: .seconds(30))
        #expect(try await fixture.queue.record(back.map(Self.answered), worker: "w2").completed.count == 30)
        let after = try await Self.read(readonly)
        #expect(after.answeredLastMinute == 30 && !after.appleFailing)
        #expect(after.claimable == 29 && after.claimable == after.due)
    }

    @Test func failuresOlderThanAMinuteNoLongerHoldTheScalerAtZero() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let readonly = PostgresPool(configuration: try await fixture.database.configuration(as: .readonly), size: 1)
        defer { readonly.shutdown() }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(12))
        let failed = try await fixture.queue.claim(limit: 12, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(failed.map { FinishedAttempt.ending($0, .retry(delayMilliseconds: 0, error: "HTTP 503")) }, worker: "w1")
        #expect(try await Self.read(readonly).claimable == 0)
        try await fixture.pool.query("UPDATE receiptq.jobs SET updated_at = now() - interval '61 seconds', run_at = now() - interval '61 seconds'")
        #expect(try await Self.read(readonly) == Reading(due: 12, failedLastMinute: 0, answeredLastMinute: 0, appleFailing: false, claimable: 12))
    }

    /// A worker starting up skips slow start only when the fleet heard from Apple a moment ago and
    /// Apple is not failing now: 2 s into a 21002 storm, the answers from before it vouch for
    /// nothing (the chaos suite saw a restarted worker send at full rate into one). A retry counts
    /// whether it is due later or due already: while the breakers are open a failed probe's job
    /// sits due and unclaimed (a worker restarted 14 s into an outage page, whose last answers
    /// came 8 s before, started at full rate into the 21002 storm that followed: 771 requests).
    @Test(arguments: [Int64(5_000), 0])
    func aFleetInAnOutageDoesNotVouchForANewWorkersFullRate(retryDelayMilliseconds: Int64) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let worker = PostgresPool(configuration: try await fixture.database.configuration(as: .worker), size: 1)
        defer { worker.shutdown() }
        func vouched() async throws -> Bool {
            try await worker.withConnection { try FleetAnsweredRecently.run(within: .seconds(10), environment: "Production", on: $0) }
        }
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(40))
        #expect(try await vouched() == false, "a cold fleet keeps slow start")
        let answered = try await fixture.queue.claim(limit: 10, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(answered.map(Self.answered), worker: "w1")
        #expect(try await vouched(), "Apple answered a moment ago")
        // An outage's first seconds: one attempt retried, far under apple_failing's thresholds.
        let first = try await fixture.queue.claim(limit: 1, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(first.map {
            FinishedAttempt.ending($0, .doubted(.receipt, delayMilliseconds: retryDelayMilliseconds, error: "21002 (malformed receipt data)"))
        }, worker: "w1")
        #expect(try await vouched() == false, "a retry a moment ago, due in \(retryDelayMilliseconds) ms: the answers may predate an outage")
        // The storm: the next 30 attempts are doubted (21002) and retried.
        let storm = try await fixture.queue.claim(limit: 30, worker: "w1", lease: .seconds(30))
        _ = try await fixture.queue.record(storm.map {
            FinishedAttempt.ending($0, .doubted(.receipt, delayMilliseconds: 5_000, error: "21002 (malformed receipt data)"))
        }, worker: "w1")
        #expect(try await vouched() == false, "10 answers, then 30 doubted retries: Apple is failing now")
    }
}
