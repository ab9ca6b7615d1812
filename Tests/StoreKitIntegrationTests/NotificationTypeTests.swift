import AppleSignedData
import AppleTestPKI
import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Every notification type Apple sends — in the shape Apple sends it, by the fake — is verified,
/// stored and answered 200 by the API, and has its documented effect once a worker applies it
/// (docs/notifications.md, "What each type does"). And an Apple-signed notification this configuration refuses
/// is kept, never answered 4xx.
@Suite("App Store Server Notifications: every type Apple sends, stored and applied", .serialized)
struct NotificationTypeTests {
    /// What a type needs before it is sent, and the effect to see once it is applied.
    struct Case: Sendable, CustomStringConvertible {
        var type: String
        var subtype: String? = nil
        var product: FakeProductType = .autoRenewable
        /// Granted to the user first (a notification about a purchase the ledger holds).
        var granted = true
        /// Sent first (e.g. a REFUND before its REFUND_REVERSED).
        var before: String? = nil
        /// SQL counting what the effect leaves, given the purchase's transaction id ($1); must be 1.
        var effect: String
        var description: String { type + (subtype.map { " " + $0 } ?? "") }
    }

    static let outcome = "SELECT count(*) AS count FROM receiptq.notifications WHERE notification_type = '%@' AND state = 'applied' AND outcome LIKE '%%%@%%'"
    static func recorded(_ type: String, _ note: String = "recorded") -> String { String(format: outcome, type, note) }
    static let grantedToUser = "SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND user_id = 'u1' AND revoked_at IS NULL"
    static func subscriptionState(_ type: String) -> String {
        "SELECT count(*) AS count FROM receiptq.subscriptions s JOIN receiptq.grants g ON g.original_transaction_id = s.original_transaction_id "
            + "WHERE g.transaction_id = $1 AND s.last_notification_type = '\(type)'"
    }

    static let cases: [Case] = [
        Case(type: "SUBSCRIBED", granted: false, effect: grantedToUser),
        Case(type: "DID_RENEW", granted: false, effect: grantedToUser),
        Case(type: "OFFER_REDEEMED", granted: false, effect: grantedToUser),
        Case(type: "RENEWAL_EXTENDED", granted: false, effect: grantedToUser),
        Case(type: "ONE_TIME_CHARGE", product: .nonConsumable, granted: false, effect: grantedToUser),
        Case(type: "EXPIRED", subtype: "VOLUNTARY", effect: subscriptionState("EXPIRED")),
        Case(type: "GRACE_PERIOD_EXPIRED", effect: subscriptionState("GRACE_PERIOD_EXPIRED")),
        Case(type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", effect: subscriptionState("DID_FAIL_TO_RENEW")),
        Case(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", effect: subscriptionState("DID_CHANGE_RENEWAL_STATUS")),
        Case(type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", effect: subscriptionState("DID_CHANGE_RENEWAL_PREF")),
        Case(type: "PRICE_INCREASE", subtype: "PENDING", effect: subscriptionState("PRICE_INCREASE")),
        Case(type: "RENEWAL_EXTENSION", subtype: "FAILURE", effect: subscriptionState("RENEWAL_EXTENSION")),
        Case(type: "RENEWAL_EXTENSION", subtype: "SUMMARY", effect: recorded("RENEWAL_EXTENSION", "renewal date extension")),
        Case(type: "REFUND", product: .consumable,
             effect: "SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND revoked_at IS NOT NULL"),
        Case(type: "REVOKE", product: .nonConsumable,
             effect: "SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND revocation_reason LIKE 'family sharing%'"),
        Case(type: "REFUND_REVERSED", product: .consumable, before: "REFUND",
             effect: "SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.reinstated' AND body->>'transaction_id' = $1"),
        Case(type: "REFUND_DECLINED", product: .consumable, effect: recorded("REFUND_DECLINED")),
        Case(type: "CONSUMPTION_REQUEST", product: .consumable,
             effect: "SELECT count(*) AS count FROM receiptq.consumption_requests WHERE transaction_id = $1 AND user_id = 'u1'"),
        Case(type: "TEST", effect: recorded("TEST")),
        Case(type: "METADATA_UPDATE", effect: recorded("METADATA_UPDATE")),
        Case(type: "MIGRATION", effect: recorded("MIGRATION")),
        Case(type: "PRICE_CHANGE", effect: recorded("PRICE_CHANGE")),
        Case(type: "EXTERNAL_PURCHASE_TOKEN", effect: recorded("EXTERNAL_PURCHASE_TOKEN", "external purchase token")),
        Case(type: "RESCIND_CONSENT",
             effect: "SELECT count(*) AS count FROM receiptq.events WHERE type = 'consent.rescinded' AND user_id LIKE 'app-transaction:%'"),
    ]

    static func applied(_ pipeline: StoreKitPipeline, _ uuid: String) async -> Bool {
        await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE notification_uuid = $1::uuid AND state = 'applied'",
                                       [uuid])) == 1
        }
    }

    @Test("each type: verified, stored, answered 200, applied with its documented effect", arguments: cases)
    func everyType(_ item: Case) async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let token = UUID()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-1", "user_id": "u1", "product_id": "com.example.thing",
                                                       "app_account_token": token.uuidString])
            let purchase = try pipeline.buy("com.example.thing", type: item.product, appAccountToken: token,
                                            expiresInSeconds: item.product == .autoRenewable ? 3600 : nil)
            if item.granted {
                let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: "u1").id))
                #expect(status["verdict"] as? String == "delivered", "\(status)")
            }
            if let before = item.before {
                let uuid = try pipeline.fake.serverAPI.sendNotification(.init(notificationType: before, transactionId: purchase.transactionId))
                #expect(await Self.applied(pipeline, uuid), "\(before) first")
            }
            let uuid = try pipeline.fake.serverAPI.sendNotification(.init(notificationType: item.type, subtype: item.subtype,
                                                                           transactionId: purchase.transactionId))
            #expect(await Self.applied(pipeline, uuid), "\(item) applied")
            // The fake records its attempt when the API's 200 reaches it, which on a loaded machine
            // can come after a worker has already applied the notification.
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                pipeline.fake.serverAPI.notifications.all().first { $0.notificationUUID == uuid }?.finished == true
            }, "\(item): the fake's POST finished")
            let sent = try #require(pipeline.fake.serverAPI.notifications.all().first { $0.notificationUUID == uuid })
            #expect(sent.delivered && sent.attempts.count == 1, "\(item): answered 200 at once, \(sent.attempts)")
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count(item.effect, item.effect.contains("$1") ? [purchase.transactionId] : [])) == 1
            }, "\(item): its effect")
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("Apple's notification for a bundle id not configured is kept quarantined (200), alerted on, and applied once re-driven after the fix")
    func anotherBundleIsQuarantinedNotLost() async throws {
        try await withPipeline { pipeline in
            let purchase = try pipeline.buy("com.example.thing", type: .consumable)
            let payload = try pipeline.fake.serverAPI.sendableNotification(.init(notificationType: "REFUND_DECLINED", transactionId: purchase.transactionId,
                                                                                  bundleId: "com.example.second"))
            let answer = try await pipeline.postNotification(payload)
            #expect(answer.status == 200 && answer.json["quarantined"] as? Bool == true, "\(answer.json)")
            #expect((answer.json["reason"] as? String)?.contains("bundle id") == true)
            let quarantined = "SELECT count(*) AS count FROM receiptq.notifications WHERE state = 'quarantined'"
            #expect(try await pipeline.count(quarantined) == 1)
            // Apple's retry of it changes nothing; a worker does not apply it while quarantined.
            #expect(try await pipeline.postNotification(payload).json["stored"] as? Bool == false)
            let notifications = try pipeline.startNotificationRunner(bundleIds: [StoreKitPipeline.bundleId, "com.example.second"])
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await pipeline.count(quarantined) == 1)
            // The configuration fixed (the worker knows the second app), the operator re-drives it.
            let moved = try await pipeline.pool.withConnection { try RedriveNotifications.runQuarantined(on: $0) }
            #expect(moved.count == 1)
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE state = 'applied'")) == 1
            })
            try await notifications.stop()
        }
    }

    @Test("a notification under a root the API was not configured with, but Apple's, is kept quarantined; a stranger's is 422")
    func aWrongRootIsOurMistakeAForgeryIsNot() async throws {
        let other = try TestPKI()
        try await withPipeline(api: { settings in
            // The API trusts another root (a configuration mistake); the quarantine knows Apple's (the fake's here).
            settings.signedTransactions = try? SignedTransactionVerifier(trustedRoots: [other.root], bundleIds: [StoreKitPipeline.bundleId])
        }) { pipeline in
            let purchase = try pipeline.buy("com.example.thing", type: .consumable)
            let apple = try pipeline.fake.serverAPI.sendableNotification(.init(notificationType: "TEST", transactionId: purchase.transactionId))
            let kept = try await pipeline.postNotification(apple)
            #expect(kept.status == 200 && kept.json["quarantined"] as? Bool == true, "\(kept.json)")
            let stranger = try FakeServerAPI(configuration: .init(bundleId: StoreKitPipeline.bundleId, pki: try TestPKI()))
            _ = try stranger.buy(FakePurchaseRequest(productId: "com.example.thing", notify: false))
            let forged = try stranger.sendableNotification(.init(notificationType: "REFUND", transactionId: stranger.purchases.all()[0].transactionId))
            let refused = try await pipeline.postNotification(forged)
            #expect(refused.status == 422, "signed under neither Apple's root nor ours: a forgery")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications") == 1)
        }
    }
}
