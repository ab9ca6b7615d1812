import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import Worker

/// The worker's hedging end to end: a verification whose request hangs is asked again by the
/// HTTP engine, and the purchase is granted once, long before the hung request's timeout.
@Suite("Hedging: a hung verification is asked again and granted once")
struct HedgingTests {
    @Test func aHungVerificationIsHedgedAndGrantedOnceLongBeforeItsTimeout() async throws {
        // Every request in the fake's first 2 s hangs; the hedge (due at 3 s) is answered.
        var fake = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(80)))
        fake.pHang = 1
        fake.randomFaultsEnd = .seconds(2)
        let e2e = try await EndToEnd.make(fake: fake)
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
}
