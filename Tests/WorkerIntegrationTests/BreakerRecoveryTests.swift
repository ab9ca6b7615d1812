import FakeAppStore
import ReceiptQueue
import Testing

/// After an outage the production breaker must close again whatever receipt its probe carries.
@Suite("Breaker recovery after an outage")
struct BreakerRecoveryTests {
    @Test func aSandboxReceiptAsTheProbeStillClosesTheProductionBreaker() async throws {
        // Apple's production server answers an HTML page for 3 s; every queued receipt is a
        // sandbox one, so the probe after the outage is answered 21007 by production and then
        // verified in the sandbox. Production's breaker must hear that production answered.
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(50)),
            outages: [FakeOutage(start: .zero, end: .seconds(3), kind: .html200)]))
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        _ = try await e2e.queue.enqueue((0..<25).map { n in
            NewJob(receiptData: EndToEnd.receipt([("review-\(n)", "coins100")], environment: .sandbox),
                   transactionID: "review-\(n)", userID: "app-review")
        })
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(20)))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 25)
        try await worker.stop()
        await e2e.shutdown()
    }
}
