import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Granting: exactly once, matched to orders, through the fake App Store")
struct GrantingTests {
    static let fast = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(80)))

    @Test func oneTransactionInFiveSubmissionsIsGrantedOnceAndAlreadyGrantedFourTimes() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        // Five different receipts (e.g. the app re-sent a refreshed receipt) holding transaction 777.
        let jobs = (0..<5).map { n in
            NewJob(receiptData: EndToEnd.receipt([("777", "coins100"), ("other-\(n)", "coins100")]), transactionID: "777", userID: "alice", productID: "coins100")
        }
        _ = try await e2e.queue.enqueue(jobs)
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        #expect(try await e2e.states() == ["granted": 1, "already_granted": 4])
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants WHERE transaction_id = '777'") == 1)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func missingOrderIDIsMatchedToTheUsersOldestPendingOrderAndNoOrderGivesAnUnmatchedGrant() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        try await e2e.pool.query("""
            INSERT INTO receiptq.orders (order_id, user_id, product_id, created_at) VALUES
              ('old', 'bob', 'gems', now() - interval '2 hours'), ('new', 'bob', 'gems', now() - interval '1 hour'),
              ('named', 'bob', 'gems', now())
            """)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        _ = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("t-dropped", "gems")]), transactionID: "t-dropped", userID: "bob", productID: "gems"),
            NewJob(receiptData: EndToEnd.receipt([("t-named", "gems")]), transactionID: "t-named", userID: "bob", productID: "gems", orderID: "named"),
            NewJob(receiptData: EndToEnd.receipt([("t-none", "coins100")]), transactionID: "t-none", userID: "carol", productID: "coins100"),
        ])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        let grants = try await e2e.pool.query("SELECT transaction_id, order_id, unmatched FROM receiptq.grants ORDER BY transaction_id")
        let byTransaction = Dictionary(uniqueKeysWithValues: try grants.map { (try $0.decode("transaction_id", as: String.self), ($0["order_id"], $0["unmatched"])) })
        #expect(byTransaction["t-named"]?.0 == "named")
        #expect(byTransaction["t-dropped"]?.0 == "old")          // applicationUsername dropped: oldest pending order
        #expect(byTransaction["t-none"]?.0 == nil)
        #expect(byTransaction["t-none"]?.1 == "t")              // user paid, no order: granted, flagged for ops
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.orders WHERE state = 'fulfilled'") == 2)
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.orders WHERE order_id = 'new' AND state = 'pending'") == 1)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func sandboxReceiptIsVerifiedAgainstTheSandboxAndGrantedAsSandbox() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        let id = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("review-1", "coins100")], environment: .sandbox), transactionID: "review-1", userID: "app-review"),
        ])[0].id
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        let job = try #require(try await e2e.queue.job(id: id))
        #expect(job.state == .granted)
        #expect(job.appleEnvironment == "Sandbox")
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants WHERE environment = 'Sandbox'") == 1)
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func statusAppleNeverDocumentedIsRetriedNeverRejectedAndAlertsOnce() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let logs = CapturedLogs()
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"), logs: logs)
        let ids = try await e2e.queue.enqueue((0..<5).map {
            NewJob(receiptData: EndToEnd.receipt([("u\($0)", "coins100")], forcedStatus: 21999), transactionID: "u\($0)", userID: "u")
        }).map(\.id)
        #expect(try await eventually(timeout: .seconds(20)) {
            try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE attempts >= 2") == 5
        })
        for id in ids {
            let job = try #require(try await e2e.queue.job(id: id))
            #expect(!job.state.isTerminal)               // a paid receipt is never rejected on a code we don't understand
            #expect(job.lastError?.contains("21999") == true)
        }
        let alerts = logs.at(.error)
        #expect(alerts.count == 1)                      // ten answers, one alert line (throttled)
        #expect(alerts.first?.metadata.contains("21999") == true)
        try await worker.stop()
        await e2e.shutdown()
    }
}
