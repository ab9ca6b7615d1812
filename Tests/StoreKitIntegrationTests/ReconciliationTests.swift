import AppStoreServerAPI
import FakeAppStore
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Status reconciliation and the chaos it repairs, against the fake App Store over HTTP: Apple's
/// notifications are delivered by hand — dropped, duplicated, reordered — and Get All Subscription
/// Statuses plus history syncs bring every subscription to the fake's truth, each disagreement
/// recorded and counted.
@Suite("Reconciliation: subscriptions converge on Apple's status whatever happened to the notifications", .serialized)
struct ReconciliationTests {
    /// Apple's status number as the model's state.
    static let states = [1: "active", 2: "expired", 3: "billing_retry", 4: "grace_period", 5: "revoked"]

    /// The fake's truth for each original transaction, through its App Store Server API.
    static func truth(_ pipeline: StoreKitPipeline, _ originals: [String]) async throws -> [String: String] {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let budget = PostgresPool(configuration: pipeline.asWorker, size: 1)
        defer { budget.shutdown() }
        let client = try pipeline.serverAPIClients(http: http, budgetPool: budget).production
        var truth: [String: String] = [:]
        for original in originals {
            let response = try await client.getAllSubscriptionStatuses(transactionId: original)
            for item in response.data?.flatMap({ $0.lastTransactions ?? [] }) ?? [] where item.originalTransactionId == original {
                truth[original] = item.status.flatMap { Self.states[$0] }
            }
        }
        await http.shutdown()
        return truth
    }

    /// What is still open, for a failure's message.
    static func open(_ pipeline: StoreKitPipeline) async throws -> String {
        let syncs = try await pipeline.pool.query("SELECT state, last_error FROM receiptq.history_syncs WHERE state <> 'synced'")
            .map { "\(try $0.decode("state", as: String.self)) \(try $0.decodeIfPresent("last_error", as: String.self) ?? "")" }
        let due = try await pipeline.pool.query("""
            SELECT state, reconcile_at::text AS due, reconciled_at::text AS checked FROM receiptq.subscriptions
            WHERE reconcile_at <= now() OR reconciled_at IS NULL
            """).map { "\(try $0.decodeIfPresent("state", as: String.self) ?? "-") due \(try $0.decodeIfPresent("due", as: String.self) ?? "-") checked \(try $0.decodeIfPresent("checked", as: String.self) ?? "-")" }
        return "syncs open: \(syncs); subscriptions due: \(due)"
    }

    static func stored(_ pipeline: StoreKitPipeline) async throws -> [String: String] {
        var states: [String: String] = [:]
        for row in try await pipeline.pool.query("SELECT original_transaction_id, state FROM receiptq.subscriptions") {
            states[try row.decode("original_transaction_id")] = try row.decodeIfPresent("state")
        }
        return states
    }

    /// Posts the notification Apple would have sent about `purchase` now.
    static func deliver(_ pipeline: StoreKitPipeline, _ type: String, _ subtype: String?, _ purchase: FakePurchase) async throws {
        let payload = pipeline.fake.serverAPI.signedNotification(type, subtype: subtype, about: purchase, signedAt: Date())
        #expect(try await pipeline.postNotification(payload).status == 200)
    }

    @Test("a billing failure whose notification was lost is corrected by the status check, recorded, counted, and told as events")
    func lostBillingFailureIsCorrected() async throws {
        try await withPipeline { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            let bought = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "c1", expiresInSeconds: 3600)
            let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "u1").id))
            #expect(status["verdict"] as? String == "delivered")
            try await Self.deliver(pipeline, "SUBSCRIBED", "INITIAL_BUY", bought)
            #expect(await eventually(timeout: .seconds(20)) { (try? await Self.stored(pipeline))?[bought.originalTransactionId] == "active" })
            // A new subscription is due within the hour, not now.
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.subscriptions
                WHERE reconcile_at > now() + interval '50 minutes' AND reconcile_at <= now() + interval '1 hour'
                """) == 1)

            // Apple fails to bill; its DID_FAIL_TO_RENEW never arrives.
            try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: bought.originalTransactionId, action: .billingFailure,
                                                               graceDays: 3))
            let due = try await pipeline.pool.withConnection {
                try ClaimDueSubscriptions.dueNow(originalTransactionID: bought.originalTransactionId, userID: nil, on: $0)
            }
            #expect(due == 1)
            let reconciler = try pipeline.startStatusReconciler()
            #expect(await eventually(timeout: .seconds(20)) {
                (try? await Self.stored(pipeline))?[bought.originalTransactionId] == "grace_period"
            })
            let corrections = try await pipeline.pool.query("""
                SELECT source, fields, state_before, state_after FROM receiptq.subscription_corrections WHERE original_transaction_id = $1
                """, [bought.originalTransactionId])
            #expect(corrections.count == 1)
            #expect(try corrections.first?.decode("source", as: String.self) == "status_check")
            #expect(try corrections.first?.decode("state_before", as: String.self) == "active")
            #expect(try corrections.first?.decode("state_after", as: String.self) == "grace_period")
            #expect(try await pipeline.count("SELECT corrected_by_status_24h AS count FROM receiptq.reconciliation_health WHERE environment = 'Production'") == 1)
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.events WHERE user_id = 'u1' AND type IN ('subscription.billing_issue', 'subscription.grace_period_started')
                """) == 2)
            // The next check comes within the grace period's schedule (6 h), not weeks away.
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.subscriptions
                WHERE reconciled_at IS NOT NULL AND reconcile_at <= now() + interval '6 hours' AND reconcile_at > now()
                """) == 1)
            try await reconciler.stop()
            try await runner.stop()
            try await notifications.stop()
        }
    }

    @Test("one request checks all of a customer's subscriptions: Apple's answer holds every one, and each is corrected and scheduled by it")
    func oneAnswerChecksEverySubscriptionOfTheCustomer() async throws {
        try await withPipeline { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            var bought: [FakePurchase] = []
            for product in ["com.example.basic", "com.example.pro", "com.example.news"] {
                let purchase = try pipeline.buy(product, type: .autoRenewable, customer: "c7", expiresInSeconds: 3600)
                let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: "u7").id))
                #expect(status["verdict"] as? String == "delivered")
                try await Self.deliver(pipeline, "SUBSCRIBED", "INITIAL_BUY", purchase)
                bought.append(purchase)
            }
            #expect(await eventually(timeout: .seconds(20)) { (try? await Self.stored(pipeline))?.values.filter { $0 == "active" }.count == 3 })
            // Two bills fail, unheard; all three are due.
            for purchase in bought.prefix(2) {
                try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: purchase.originalTransactionId, action: .billingFailure,
                                                                   graceDays: 3))
            }
            #expect(try await pipeline.pool.withConnection { try ClaimDueSubscriptions.dueNow(originalTransactionID: nil, userID: "u7", on: $0) } == 3)
            let requests = {
                pipeline.fake.stats.snapshot().outcomes.filter { $0.key.hasPrefix("api.get_all_subscription_statuses") }.values.reduce(0, +)
            }
            let before = requests()
            let reconciler = try pipeline.startStatusReconciler(concurrency: 1)
            #expect(await eventually(timeout: .seconds(20)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.subscriptions WHERE reconcile_at <= now()")) == 0
            })
            let stored = try await Self.stored(pipeline)
            #expect(bought.map { stored[$0.originalTransactionId] } == ["grace_period", "grace_period", "active"])
            #expect(requests() - before == 1, "one answer for the customer's three subscriptions")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.subscription_corrections WHERE source = 'status_check'") == 2)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.subscriptions WHERE reconciled_at IS NOT NULL") == 3)
            try await reconciler.stop()
            try await runner.stop()
            try await notifications.stop()
        }
    }

    @Test("chaos: N customers' lifecycles with notifications dropped, duplicated and reordered end equal to the fake's truth")
    func chaosConvergesOnApplesTruth() async throws {
        try await withPipeline { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            var random = SeededRandom(seed: 26)
            let customers = 12
            var originals: [String] = []
            var deliveries: [(String, String?, FakePurchase)] = []
            var dropped = 0
            func fate(_ type: String, _ subtype: String?, _ purchase: FakePurchase) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3: dropped += 1                                                         // lost
                case 3..<5: deliveries += [(type, subtype, purchase), (type, subtype, purchase)]  // twice
                default: deliveries.append((type, subtype, purchase))
                }
            }
            for index in 0..<customers {
                let bought = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "chaos-\(index)", expiresInSeconds: 3600)
                originals.append(bought.originalTransactionId)
                // The app submits its first purchase: the ledger knows the user, and the grant queues a history sync.
                _ = try await pipeline.submit(signed: pipeline.signed(bought), user: "user-\(index)")
                fate("SUBSCRIBED", "INITIAL_BUY", bought)
                for _ in 0..<Int.random(in: 1...5, using: &random) {
                    let original = bought.originalTransactionId
                    do {
                        switch Int.random(in: 0..<7, using: &random) {
                        case 0, 1:
                            let renewed = try fake.renew(originalTransactionId: original, expiresInSeconds: 3600)
                            fate("DID_RENEW", nil, renewed)
                        case 2:
                            let r = try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: .autoRenewOff))
                            fate(r.notificationType, r.subtype, r.purchase)
                        case 3:
                            let r = try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: .billingFailure,
                                                                                       graceDays: Bool.random(using: &random) ? 3 : 0))
                            fate(r.notificationType, r.subtype, r.purchase)
                        case 4:
                            let r = try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: .expire))
                            fate(r.notificationType, r.subtype, r.purchase)
                        case 5:
                            let r = try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: .autoRenewOn))
                            fate(r.notificationType, r.subtype, r.purchase)
                        default:
                            let latest = try #require(fake.purchases.all().last { $0.originalTransactionId == original })
                            let refunded = try fake.refund(transactionId: latest.transactionId)
                            fate("REFUND", nil, refunded)
                        }
                    } catch is FakeAdminError {
                        continue   // a change this subscription cannot take now (the fake refuses it as Apple would)
                    }
                }
            }
            deliveries.shuffle(using: &random)
            for (type, subtype, purchase) in deliveries { try await Self.deliver(pipeline, type, subtype, purchase) }
            #expect(await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE state NOT IN ('applied', 'failed')")) == 0
            })
            #expect(dropped > 0)

            // Reconciliation: every subscription due now; history syncs for every original (first sightings).
            _ = try await pipeline.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now()")
            let history = try pipeline.startHistorySyncRunner()
            let reconciler = try pipeline.startStatusReconciler()
            let converged = await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
                // On demand, as `receiptq reconcile` would: subscriptions the history syncs created since are checked too.
                _ = try? await pipeline.pool.query("""
                    UPDATE receiptq.subscriptions SET reconcile_at = now() WHERE reconciled_at IS NULL AND reconcile_at > now()
                    """)
                let open = (try? await pipeline.count("""
                    SELECT (SELECT count(*) FROM receiptq.history_syncs WHERE state <> 'synced')
                         + (SELECT count(*) FROM receiptq.subscriptions WHERE reconcile_at <= now() OR reconciled_at IS NULL) AS count
                    """)) ?? 1
                return open == 0
            }
            let stillOpen = try await Self.open(pipeline)
            #expect(converged, "\(stillOpen)")
            let truth = try await Self.truth(pipeline, originals)
            let stored = try await Self.stored(pipeline)
            #expect(truth.count == customers)
            for original in originals {
                #expect(stored[original] == truth[original], "\(original): stored \(stored[original] ?? "-"), Apple \(truth[original] ?? "-")")
            }
            try await reconciler.stop()
            try await history.stop()
            try await runner.stop()
            try await notifications.stop()
        }
    }
}

/// SplitMix64: a reproducible sequence for the chaos (seed in the test).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
