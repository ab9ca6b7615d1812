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

    @Test func orderForAnotherProductAndAnOriginalTransactionOwnedByAnotherUserAreRejected() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        try await e2e.pool.query("INSERT INTO receiptq.orders (order_id, user_id, product_id) VALUES ('o-gems', 'dave', 'gems')")
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        let first = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("t1", "coins100")]), transactionID: "t1", userID: "dave", productID: "coins100", orderID: "o-gems"),
            NewJob(receiptData: EndToEnd.receipt([("sub-1", "premium")], original: "sub-orig"), transactionID: "sub-1", userID: "erin", productID: "premium"),
        ])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        // A renewal of erin's subscription submitted by another account.
        let stolen = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("sub-2", "premium")], original: "sub-orig"), transactionID: "sub-2", userID: "mallory", productID: "premium"),
        ])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        #expect(try await e2e.queue.job(id: first[0].id)?.outcomeReason == "product does not match the order")
        #expect(try await e2e.queue.job(id: first[1].id)?.state == .granted)
        #expect(try await e2e.queue.job(id: stolen[0].id)?.outcomeReason == "owned by another account")
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants") == 1)
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

    @Test func forgedMalformedAndOtherAppsReceiptsEndRejectedWithReasons() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"))
        let ids = try await e2e.queue.enqueue([
            NewJob(receiptData: EndToEnd.receipt([("f1", "coins100")], forcedStatus: 21003), transactionID: "f1", userID: "u"),
            NewJob(receiptData: "bm90IGEgcmVjZWlwdA==", transactionID: "f2", userID: "u"),          // "not a receipt": 21002
            NewJob(receiptData: EndToEnd.receipt([("f3", "coins100")], bundle: "com.other.app"), transactionID: "f3", userID: "u"),
            NewJob(receiptData: EndToEnd.receipt([]), transactionID: "f4", userID: "u"),
            NewJob(receiptData: EndToEnd.receipt([("real", "coins100")]), transactionID: "not-in-it", userID: "u"),
        ]).map(\.id)
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(60)))
        var reasons: [String] = []
        for id in ids {
            let job = try #require(try await e2e.queue.job(id: id))
            #expect(job.state == .rejected)
            reasons.append(job.outcomeReason ?? "")
        }
        #expect(reasons[0].contains("21003"))
        #expect(reasons[1].contains("21002"))
        #expect(try await e2e.queue.job(id: ids[1])?.attempts == 3)   // bounded retries before rejecting
        #expect(reasons[2].contains("another app"))
        #expect(reasons[3].contains("no in-app purchases"))
        #expect(reasons[4].contains("transaction not found"))
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.grants") == 0)
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

    @Test func wrongSharedSecretStopsClaimingInsteadOfFailingReceipts() async throws {
        var fake = Self.fast
        fake.sharedSecret = "right-secret"
        let e2e = try await EndToEnd.make(fake: fake)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"), sharedSecret: "wrong-secret")
        _ = try await e2e.queue.enqueue((0..<50).map { NewJob(receiptData: EndToEnd.receipt([("s\($0)", "coins100")]), transactionID: "s\($0)", userID: "u") })
        // Every call sent has been answered 21004 and its job released, its attempt given back
        // (on a loaded machine the first calls take more than a second to go out).
        #expect(try await eventually(timeout: .seconds(20)) {
            guard e2e.fake.stats.snapshot().requests > 0 else { return false }
            return try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'queued' AND attempts = 0") == 50
        })
        let requests = e2e.fake.stats.snapshot().requests
        try await Task.sleep(for: .seconds(2))
        #expect(e2e.fake.stats.snapshot().requests == requests)   // paused: no more calls to Apple
        #expect(requests <= 60)
        try await worker.stop()
        await e2e.shutdown()
    }
}
