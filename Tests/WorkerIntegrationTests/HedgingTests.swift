import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import Worker

/// The worker's hedging end to end: a verification whose request hangs is asked again by the
/// HTTP engine, and the purchase is granted once, long before the hung request's timeout; a job
/// on its third try is asked twice at once.
@Suite("Hedging: a hung verification is asked again and granted once")
struct HedgingTests {
    /// A quick fake App Store whose every request in its first 2 s hangs.
    static func hangingForTwoSeconds() -> FakeAppStoreConfiguration {
        var fake = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(80)))
        fake.pHang = 1
        fake.randomFaultsEnd = .seconds(2)
        return fake
    }

    @Test func aHungVerificationIsHedgedAndGrantedOnceLongBeforeItsTimeout() async throws {
        // Every request in the fake's first 2 s hangs; the hedge (due at 3 s) is answered.
        let e2e = try await EndToEnd.make(fake: Self.hangingForTwoSeconds())
        var configuration = e2e.workerConfiguration(name: "w")
        configuration.hedging = HedgePolicy(maxShare: 1, initialDelay: .seconds(3))   // every straggler may be hedged
        let worker = e2e.startWorker(configuration, timeout: .seconds(60))
        let started = ContinuousClock.now
        _ = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("hedged-1", "coins100")]), transactionID: "hedged-1", userID: "u1", productID: "coins100"),
        ])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        let elapsed = ContinuousClock.now - started
        #expect(try await e2e.states() == ["granted": 1])
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants WHERE transaction_id = 'hedged-1'") == 1)
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE attempts = 1") == 1)   // one attempt: no timeout, no retry
        #expect(e2e.fake.stats.snapshot().requests == 2)   // the hung request and its hedge
        #expect(elapsed < .seconds(30), "granted after \(elapsed): the hung request's 60 s timeout, not the hedge")
        try await worker.stop()
        await e2e.shutdown()
    }

    /// A worker keeps hedge credit for three times the hedge share of its slots, not a fixed 10:
    /// fifteen verifications that all hang at once are each hedged, none left to its timeout.
    @Test func aWorkerSizesItsHedgeCreditToItsConcurrency() async throws {
        let e2e = try await EndToEnd.make(fake: Self.hangingForTwoSeconds())
        var configuration = e2e.workerConfiguration(name: "w")
        configuration.hedging = HedgePolicy(maxShare: 1, initialDelay: .seconds(3))   // each first request earns a whole hedge
        let worker = e2e.startWorker(configuration, timeout: .seconds(60))
        _ = try await e2e.queue.enqueue((0..<15).map { n in
            NewJob(receiptData: EndToEnd.receipt([("hang-\(n)", "coins100")]), transactionID: "hang-\(n)", userID: "u\(n)", productID: "coins100")
        })
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        #expect(try await e2e.states() == ["granted": 15])
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE attempts = 1") == 15)   // no timeout, no retry
        #expect(e2e.fake.stats.snapshot().requests == 30, "15 hung requests and 15 hedges (a credit capped at 10 hedges 10)")
        try await worker.stop()
        await e2e.shutdown()
    }

    /// A job whose two tries before met Apple's trouble goes to Apple as two requests at once
    /// (`HedgePolicy.pairedAttempts`), and so does a second try when no job waits for a slot
    /// (`idlePairedAttempts`: three jobs, a claim of up to 20); a first try goes as one. Each
    /// purchase is granted once.
    @Test func retriesAtTheEndOfABacklogAreAskedTwiceAtOnceAndGrantedOnce() async throws {
        // Slow enough that both requests of the pair reach the fake before either is answered.
        let fake = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(400), upper: .milliseconds(500)))
        let e2e = try await EndToEnd.make(fake: fake)
        let ids = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("first-try", "coins100")]), transactionID: "first-try", userID: "u1", productID: "coins100"),
            NewJob(receiptData: EndToEnd.receipt([("third-try", "coins100")]), transactionID: "third-try", userID: "u2", productID: "coins100"),
            NewJob(receiptData: EndToEnd.receipt([("second-try", "coins100")]), transactionID: "second-try", userID: "u3", productID: "coins100"),
        ]).map(\.id)
        // What failed tries left: claimed twice (once), due again now.
        try await e2e.pool.query("UPDATE receiptq.jobs SET attempts = 2 WHERE id = $1", [ids[1]])
        try await e2e.pool.query("UPDATE receiptq.jobs SET attempts = 1 WHERE id = $1", [ids[2]])
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        #expect(try await e2e.states() == ["granted": 3])
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants WHERE transaction_id IN ('first-try', 'second-try', 'third-try')") == 3)
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1 AND attempts = 3", [ids[1]]) == 1)
        #expect(e2e.fake.stats.snapshot().requests == 5, "one request for the first try, two at once for each retry")
        try await worker.stop()
        await e2e.shutdown()
    }

    /// A job on its third try goes as a pair; one request hangs and the other meets Apple's
    /// trouble (21005). Once the hung one is past the hedge delay (2 s here) the try ends with
    /// the 21005 and the job is retried at once, instead of waiting out the 20 s timeout; it is
    /// granted once, and nothing more than the retry's pair reaches Apple.
    @Test func aPairedTryWhoseOneRequestHangsIsRetriedOnceItIsAStragglerNotAtItsTimeout() async throws {
        var fake = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(400), upper: .milliseconds(500)))
        fake.firstRequests = [.hang, .status(21_005)]   // the third try's pair, in arrival order
        let e2e = try await EndToEnd.make(fake: fake)
        let id = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("paired", "coins100")]), transactionID: "paired", userID: "u1", productID: "coins100"),
        ])[0].id
        try await e2e.pool.query("UPDATE receiptq.jobs SET attempts = 2 WHERE id = $1", [id])   // two tries failed before
        var configuration = e2e.workerConfiguration(name: "w")
        configuration.hedging = HedgePolicy(initialDelay: .seconds(2))   // the hedge delay before any p99 is known
        let started = ContinuousClock.now
        let worker = e2e.startWorker(configuration, timeout: .seconds(20))
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(40)))
        let elapsed = ContinuousClock.now - started
        #expect(try await e2e.states() == ["granted": 1])
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants WHERE transaction_id = 'paired'") == 1)
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE id = $1 AND attempts = 4", [id]) == 1)
        #expect(e2e.fake.stats.snapshot().requests == 4, "the third try's pair, then the fourth try's")
        #expect(elapsed < .seconds(12), "granted after \(elapsed): the hung request's 20 s timeout, not the hedge delay")
        try await worker.stop()
        await e2e.shutdown()
    }
}
