import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Submissions feed the subscription model, against the fake App Store and PostgreSQL: a receipt
/// verified by verifyReceipt (`latest_receipt_info`, `pending_renewal_info`) and a StoreKit 2
/// signed transaction, applied in the transaction that writes the job's verdict — with the
/// subscription's events, once, to the purchase's owner only.
@Suite("Submissions feed the subscription model: receipts and signed transactions", .serialized)
struct SubmissionFactsTests {
    static let basic = "com.example.basic"
    static let lite = "com.example.lite"

    /// A receipt holding `periods` as the fake sold them, made at `created`, with Apple's renewal
    /// info for it (nil: renews to the same product).
    static func receipt(_ periods: [FakePurchase], created: Date, renewal: [FakePendingRenewal]? = nil, padding: String? = nil) -> String {
        FakeReceipt(bundleID: StoreKitPipeline.bundleId, inApp: periods.map { p in
            FakeTransaction(transactionID: p.transactionId, originalTransactionID: p.originalTransactionId, productID: p.productId,
                            purchaseDateMs: p.purchaseDate, expiresDateMs: p.expiresDate, webOrderLineItemID: p.webOrderLineItemId,
                            appAccountToken: p.appAccountToken)
        }, padding: padding, creationDateMs: Int64(created.timeIntervalSince1970 * 1000), pendingRenewalInfo: renewal).base64()
    }

    static func renewal(_ p: FakePurchase, to product: String? = nil, autoRenew: Bool = true) -> [FakePendingRenewal] {
        [FakePendingRenewal(originalTransactionID: p.originalTransactionId, productID: p.productId, autoRenewProductID: product,
                            autoRenewStatus: autoRenew)]
    }

    /// Submits a receipt for the purchase's transaction and returns the final status.
    static func submit(_ pipeline: StoreKitPipeline, _ receipt: String, _ purchase: FakePurchase, user: String) async throws -> [String: Any] {
        let answer = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": purchase.transactionId, "user_id": user])
        #expect(answer.status == 202, "\(answer.json)")
        return try await pipeline.final(try #require(answer.id))
    }

    static func subscription(_ pipeline: StoreKitPipeline, user: String) async throws -> [String: Any]? {
        (try await pipeline.get("/v1/users/\(user)/subscriptions").json["subscriptions"] as? [[String: Any]])?.first
    }

    static func events(_ pipeline: StoreKitPipeline, user: String) async throws -> [String] {
        try await pipeline.pool.query("""
            SELECT type FROM receiptq.events WHERE user_id = $1 AND type LIKE 'subscription.%' ORDER BY sequence
            """, [user]).map { try $0.decode("type", as: String.self) }
    }

    static func stored(_ pipeline: StoreKitPipeline, _ original: String) async throws -> PostgresRow? {
        try await pipeline.pool.query("""
            SELECT user_id, last_source, auto_renew_status, renews_to_product_id FROM receiptq.subscriptions WHERE original_transaction_id = $1
            """, [original]).first
    }

    /// The model's expiry, in Apple's whole milliseconds (the view's ISO 8601 text may read one
    /// millisecond early: Foundation's format style truncates).
    static func expiresMs(_ pipeline: StoreKitPipeline, _ original: String) async throws -> Int64? {
        try await pipeline.pool.query("""
            SELECT (model->>'expiresAt')::bigint AS expires FROM receiptq.subscriptions WHERE original_transaction_id = $1
            """, [original]).first?.decodeIfPresent("expires")
    }

    @Test("a receipt fills the subscription: state, expiry, auto-renew, the product it renews to; a later one shows a pending downgrade")
    func receiptFillsTheModel() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, expiresInSeconds: 3600)
            let status = try await Self.submit(pipeline, Self.receipt([bought], created: Date()), bought, user: "u1")
            #expect(status["verdict"] as? String == "delivered", "\(status)")

            let subscription = try #require(try await Self.subscription(pipeline, user: "u1"))
            #expect(subscription["state"] as? String == "active")
            #expect(subscription["product_id"] as? String == Self.basic)
            #expect(subscription["transaction_id"] as? String == bought.transactionId)
            #expect(subscription["expires_at"] is String)
            #expect(try await Self.expiresMs(pipeline, bought.originalTransactionId) == bought.expiresDate)
            #expect(subscription["auto_renew"] as? Bool == true)
            #expect(subscription["renews_to_product_id"] as? String == Self.basic)
            #expect(subscription["pending_product_id"] == nil)
            #expect(try await Self.stored(pipeline, bought.originalTransactionId)?.decode("last_source", as: String.self) == "receipt")
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased"])

            // The customer schedules a downgrade; the app's next receipt says so in pending_renewal_info.
            let later = Self.receipt([bought], created: Date().addingTimeInterval(1), renewal: Self.renewal(bought, to: Self.lite))
            #expect(try await Self.submit(pipeline, later, bought, user: "u1")["verdict"] as? String == "already_delivered")
            let downgrading = try #require(try await Self.subscription(pipeline, user: "u1"))
            #expect(downgrading["product_id"] as? String == Self.basic, "a downgrade waits for the renewal")
            #expect(downgrading["renews_to_product_id"] as? String == Self.lite)
            #expect(downgrading["pending_product_id"] as? String == Self.lite)
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased", "subscription.product_change_scheduled"])
            try await worker.stop()
        }
    }

    @Test("an older receipt submitted after a newer status check does not move the subscription back; a newer one does")
    func olderReceiptNeverMovesBack() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let fake = pipeline.fake.serverAPI
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, customer: "c1", expiresInSeconds: 3600)
            let original = bought.originalTransactionId
            let madeAtPurchase = Date().addingTimeInterval(-60)   // the app's receipt, a minute before the status check
            #expect(try await Self.submit(pipeline, Self.receipt([bought], created: madeAtPurchase), bought, user: "u1")["verdict"] as? String
                    == "delivered")
            #expect(try await Self.stored(pipeline, original)?.decode("auto_renew_status", as: Int.self) == 1)

            // The customer turns auto-renew off; no notification arrives, Apple's status says so.
            try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: .autoRenewOff))
            #expect(try await pipeline.pool.withConnection {
                try ClaimDueSubscriptions.dueNow(originalTransactionID: original, userID: nil, on: $0)
            } == 1)
            let reconciler = try pipeline.startStatusReconciler()
            #expect(await eventually(timeout: .seconds(20)) {
                (try? await Self.stored(pipeline, original)?.decode("auto_renew_status", as: Int.self)) == 0
            })
            try await reconciler.stop()
            let told = try await Self.events(pipeline, user: "u1")
            #expect(told == ["subscription.purchased", "subscription.auto_renew_disabled"])

            // A receipt made before the status check (an old one, replayed): verified, granted, and ignored by the model.
            let old = Self.receipt([bought], created: madeAtPurchase.addingTimeInterval(1), renewal: Self.renewal(bought))
            #expect(try await Self.submit(pipeline, old, bought, user: "u1")["verdict"] as? String == "already_delivered")
            let after = try #require(try await Self.stored(pipeline, original))
            #expect(try after.decode("auto_renew_status", as: Int.self) == 0, "the older receipt moved auto-renew back on")
            #expect(try after.decode("last_source", as: String.self) == "status_check")
            #expect(try await Self.events(pipeline, user: "u1") == told)

            // One made after it (the customer turned auto-renew back on) moves it: the order is by signing time.
            let newer = Self.receipt([bought], created: Date().addingTimeInterval(1), renewal: Self.renewal(bought))
            #expect(try await Self.submit(pipeline, newer, bought, user: "u1")["verdict"] as? String == "already_delivered")
            #expect(try await Self.stored(pipeline, original)?.decode("auto_renew_status", as: Int.self) == 1)
            #expect(try await Self.events(pipeline, user: "u1") == told + ["subscription.auto_renew_enabled"])
            try await worker.stop()
        }
    }

    @Test("a replay under another account never makes that account the subscriber; Apple's newer facts still reach the owner")
    func replayUnderAnotherAccount() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, expiresInSeconds: 3600)
            let original = bought.originalTransactionId
            #expect(try await Self.submit(pipeline, Self.receipt([bought], created: Date()), bought, user: "u1")["verdict"] as? String
                    == "delivered")
            let replay = Self.receipt([bought], created: Date().addingTimeInterval(1), renewal: Self.renewal(bought, autoRenew: false))
            #expect(try await Self.submit(pipeline, replay, bought, user: "u2")["verdict"] as? String == "owned_by_another_user")
            #expect(try await Self.stored(pipeline, original)?.decode("user_id", as: String.self) == "u1")
            #expect(try await Self.subscription(pipeline, user: "u2") == nil)
            #expect(try await Self.events(pipeline, user: "u2") == [])
            // What Apple says is true whoever sends it: the owner hears of it.
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased", "subscription.auto_renew_disabled"])
            try await worker.stop()
        }
    }

    @Test("a replay before the owner's own submission (the order's appAccountToken names the owner): kept without a user until the owner's")
    func replayBeforeTheOwner() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let token = UUID()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-1", "user_id": "u1", "product_id": Self.basic,
                                                       "app_account_token": token.uuidString])
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, appAccountToken: token, expiresInSeconds: 3600)
            let original = bought.originalTransactionId
            let receipt = Self.receipt([bought], created: Date())
            #expect(try await Self.submit(pipeline, receipt, bought, user: "u2")["verdict"] as? String == "owned_by_another_user")
            let kept = try #require(try await Self.stored(pipeline, original), "Apple's facts are kept")
            #expect(try kept.decodeIfPresent("user_id", as: String.self) == nil, "the replayer is never the subscriber")
            #expect(try await Self.events(pipeline, user: "u2") == [])

            #expect(try await Self.submit(pipeline, receipt, bought, user: "u1")["verdict"] as? String == "delivered")
            #expect(try await Self.stored(pipeline, original)?.decode("user_id", as: String.self) == "u1")
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased"], "told once, where it stands")
            #expect(try await Self.events(pipeline, user: "u2") == [])
            try await worker.stop()
        }
    }

    @Test("a resubmitted receipt or signed transaction emits no new events (facts are idempotent)")
    func resubmissionIsSilent() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let runner = try pipeline.startRunner(serverAPI: false)
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, expiresInSeconds: 3600)
            let created = Date()
            #expect(try await Self.submit(pipeline, Self.receipt([bought], created: created), bought, user: "u1")["verdict"] as? String
                    == "delivered")
            let first = try await Self.events(pipeline, user: "u1")
            #expect(first == ["subscription.purchased"])
            // The same receipt in other bytes (a new job, verified again): the ledger says already delivered, the model nothing.
            let again = Self.receipt([bought], created: created, padding: "again")
            #expect(try await Self.submit(pipeline, again, bought, user: "u1")["verdict"] as? String == "already_delivered")
            // The same period as StoreKit 2 signs it, a second later.
            let answer = try await pipeline.submit(signed: pipeline.signed(bought, at: created.addingTimeInterval(1)), user: "u1")
            #expect(try await pipeline.final(try #require(answer.id))["verdict"] as? String == "already_delivered")
            #expect(try await Self.events(pipeline, user: "u1") == first)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE user_id = 'u1'") == 3)
            try await runner.stop()
            try await worker.stop()
        }
    }

    @Test("a model the worker cannot read never costs the payer the verdict: the grant commits, the facts are left out")
    func unreadableModelNeverCostsTheVerdict() async throws {
        try await withPipeline { pipeline in
            let worker = try pipeline.startReceiptWorker()
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, expiresInSeconds: 3600)
            #expect(try await Self.submit(pipeline, Self.receipt([bought], created: Date()), bought, user: "u1")["verdict"] as? String
                    == "delivered")
            try await pipeline.pool.query("UPDATE receiptq.subscriptions SET model = '{\"unreadable\": true}' WHERE original_transaction_id = $1",
                                          [bought.originalTransactionId])
            let renewed = try pipeline.fake.serverAPI.renew(originalTransactionId: bought.originalTransactionId, expiresInSeconds: 3600)
            let status = try await Self.submit(pipeline, Self.receipt([bought, renewed], created: Date().addingTimeInterval(1)), renewed, user: "u1")
            #expect(status["verdict"] as? String == "delivered", "\(status)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'u1'") == 2)
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.subscriptions WHERE model = '{"unreadable": true}'::jsonb
                """) == 1, "the facts were left out whole")
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased"])
            try await worker.stop()
        }
    }

    @Test("a signed transaction of an auto-renewable subscription fills the model; a consumable's does not")
    func signedTransactionFillsTheModel() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, expiresInSeconds: 3600)
            let coins = try pipeline.buy("com.example.coins")
            for purchase in [bought, coins] {
                let answer = try await pipeline.submit(signed: pipeline.signed(purchase), user: "u1")
                #expect(try await pipeline.final(try #require(answer.id))["verdict"] as? String == "delivered")
            }
            let subscription = try #require(try await Self.subscription(pipeline, user: "u1"))
            #expect(subscription["state"] as? String == "active")
            #expect(try await Self.expiresMs(pipeline, bought.originalTransactionId) == bought.expiresDate)
            #expect(try await Self.stored(pipeline, bought.originalTransactionId)?.decode("last_source", as: String.self) == "transaction")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.subscriptions") == 1)
            #expect(try await Self.events(pipeline, user: "u1") == ["subscription.purchased"])
            try await runner.stop()
        }
    }
}
