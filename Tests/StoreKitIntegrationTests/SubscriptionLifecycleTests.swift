import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// One subscriber's whole life, played by the fake App Store as Apple would — each change followed
/// by Apple's notification, signed by the fake's CA, posted to the API, verified and applied by a
/// worker — and what the backend sees after each: the subscription's state and product, the
/// entitlements, and the `subscription.*` events (docs/subscriptions.md's table, end to end).
@Suite("Subscriptions end to end: each transition the fake plays, as a backend sees it", .serialized)
struct SubscriptionLifecycleTests {
    struct Seen: Equatable, CustomStringConvertible {
        var state: String?
        var product: String?
        var pending: String?
        var entitled: [String]
        var description: String { "\(state ?? "-") \(product ?? "-") pending \(pending ?? "-") entitled \(entitled)" }
    }

    static func seen(_ pipeline: StoreKitPipeline) async throws -> Seen {
        let subscription = (try await pipeline.get("/v1/users/u1/subscriptions").json["subscriptions"] as? [[String: Any]])?.first
        let entitlements = try await pipeline.get("/v1/users/u1/entitlements").json["entitlements"] as? [[String: Any]] ?? []
        return Seen(state: subscription?["state"] as? String, product: subscription?["product_id"] as? String,
                    pending: subscription?["pending_product_id"] as? String,
                    entitled: entitlements.flatMap { $0["entitlements"] as? [String] ?? [] }.sorted())
    }

    static func events(_ pipeline: StoreKitPipeline) async throws -> [String] {
        try await pipeline.pool.query("SELECT type FROM receiptq.events WHERE user_id = 'u1' AND type LIKE 'subscription.%' ORDER BY sequence")
            .map { try $0.decode("type", as: String.self) }
    }

    @Test("purchase, upgrade, downgrade at renewal, billing failure with grace, grace expired, recovery, auto-renew off, expiry")
    func aSubscribersLife() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let fake = pipeline.fake.serverAPI
            try await pipeline.pool.query("""
                INSERT INTO receiptq.products (product_id, type, subscription_group, group_level, entitlements) VALUES
                    ('com.example.pro', 'auto_renewable', 'group-1', 1, '{pro,basic}'),
                    ('com.example.basic', 'auto_renewable', 'group-1', 2, '{basic}')
                """)
            let token = UUID()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-1", "user_id": "u1", "product_id": "com.example.basic",
                                                       "app_account_token": token.uuidString])
            let bought = try pipeline.buy("com.example.basic", type: .autoRenewable, appAccountToken: token, expiresInSeconds: 3600)
            let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "u1").id))
            #expect(status["verdict"] as? String == "delivered", "\(status)")
            let original = bought.originalTransactionId

            var applied = 0
            var expectedEvents: [String] = []
            /// Plays one step, waits until its notification is applied, and checks what is seen.
            func step(_ name: String, _ play: () throws -> Void, seen expected: Seen, events: [String],
                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
                try play()
                applied += 1
                let target = applied
                #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                    (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE state = 'applied'")) == target
                }, "\(name): applied", sourceLocation: sourceLocation)
                expectedEvents += events.map { "subscription." + $0 }
                var last = Seen(entitled: [])
                let matched = await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                    last = (try? await Self.seen(pipeline)) ?? last
                    return last == expected
                }
                #expect(matched, "\(name): saw \(last), expected \(expected)", sourceLocation: sourceLocation)
                #expect(try await Self.events(pipeline) == expectedEvents, "\(name): events", sourceLocation: sourceLocation)
            }
            func change(_ action: FakeSubscriptionChange.Action, product: String? = nil, graceDays: Int? = nil,
                        reason: String? = nil) throws {
                try fake.changeSubscription(FakeSubscriptionChange(originalTransactionId: original, action: action, productId: product,
                                                                   graceDays: graceDays, reason: reason))
            }

            try await step("SUBSCRIBED INITIAL_BUY", {
                _ = try fake.sendNotification(.init(notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", transactionId: bought.transactionId))
            }, seen: Seen(state: "active", product: "com.example.basic", entitled: ["basic"]), events: ["purchased"])
            try await step("upgrade", { try change(.upgrade, product: "com.example.pro") },
                           seen: Seen(state: "active", product: "com.example.pro", entitled: ["basic", "pro"]), events: ["product_changed"])
            try await step("downgrade", { try change(.downgrade, product: "com.example.basic") },
                           seen: Seen(state: "active", product: "com.example.pro", pending: "com.example.basic", entitled: ["basic", "pro"]),
                           events: ["product_change_scheduled"])
            try await step("renewal into the downgrade", { _ = try fake.renew(originalTransactionId: original) },
                           seen: Seen(state: "active", product: "com.example.basic", entitled: ["basic"]), events: ["product_changed", "renewed"])
            try await step("billing failure with a grace period", { try change(.billingFailure, graceDays: 3) },
                           seen: Seen(state: "grace_period", product: "com.example.basic", entitled: ["basic"]),
                           events: ["billing_issue", "grace_period_started"])
            try await step("grace period expired", { try change(.graceExpired) },
                           seen: Seen(state: "billing_retry", product: "com.example.basic", entitled: []), events: ["grace_period_expired"])
            try await step("billing recovered", { _ = try fake.renew(originalTransactionId: original) },
                           seen: Seen(state: "active", product: "com.example.basic", entitled: ["basic"]), events: ["renewed"])
            try await step("auto-renew off", { try change(.autoRenewOff) },
                           seen: Seen(state: "active", product: "com.example.basic", entitled: ["basic"]), events: ["auto_renew_disabled"])
            try await step("expired", { try change(.expire, reason: "voluntary") },
                           seen: Seen(state: "expired", product: "com.example.basic", entitled: []), events: ["expired"])

            let reason = try await pipeline.pool.query("""
                SELECT body->'change'->>'reason' AS reason FROM receiptq.events WHERE type = 'subscription.expired'
                """).first?.decode("reason", as: String.self)
            #expect(reason == "voluntary")
            // Each period granted once, to the subscriber: the first, the upgrade and two renewals.
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'u1'") == 4)
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("the fake refuses a change the subscription cannot take, naming the field")
    func refusedChanges() async throws {
        try await withPipeline { pipeline in
            let fake = pipeline.fake.serverAPI
            let bought = try pipeline.buy("com.example.basic", type: .autoRenewable)
            let coins = try pipeline.buy("com.example.coins")
            let cases: [(FakeSubscriptionChange, String)] = [
                (FakeSubscriptionChange(originalTransactionId: bought.originalTransactionId, action: .upgrade), "productId"),
                (FakeSubscriptionChange(originalTransactionId: bought.originalTransactionId, action: .expire, reason: "bored"), "reason"),
                (FakeSubscriptionChange(originalTransactionId: bought.originalTransactionId, action: .billingFailure, graceDays: 99), "graceDays"),
                (FakeSubscriptionChange(originalTransactionId: coins.transactionId, action: .autoRenewOff), "not an auto-renewable"),
                (FakeSubscriptionChange(originalTransactionId: "nope", action: .autoRenewOff), "no subscription"),
            ]
            for (change, message) in cases {
                #expect(throws: FakeAdminError.self, "\(change.action)") { try fake.changeSubscription(change) }
                do { try fake.changeSubscription(change) } catch let error as FakeAdminError {
                    #expect("\(error)".contains(message), "\(change.action): \(error)")
                }
            }
        }
    }
}
