import AppleSignedData
import AppleTestPKI
import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// App Store Server Notifications V2 end to end: the fake App Store POSTs what Apple would, signed
/// by its test CA, to `POST /v1/apple/notifications`; the API verifies and commits it before the
/// 200; a worker's notification runner applies it to the ledger in Apple's order.
@Suite("App Store Server Notifications: refunds, revocations and renewals reach the ledger", .serialized)
struct NotificationTests {
    /// A granted purchase, by StoreKit 2 submission.
    static func granted(_ pipeline: StoreKitPipeline, _ product: String, type: FakeProductType, user: String,
                        expiresInSeconds: Int64? = nil) async throws -> FakePurchase {
        let purchase = try pipeline.buy(product, type: type, customer: "customer-\(user)", expiresInSeconds: expiresInSeconds)
        let id = try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: user).id)
        let status = try await pipeline.final(id)
        #expect(status["verdict"] as? String == "delivered", "\(status)")
        return purchase
    }

    static func notificationsApplied(_ pipeline: StoreKitPipeline, _ count: Int) async -> Bool {
        await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE state = 'applied'")) == count
        }
    }

    @Test("a refund revokes the grant (the row stays) with a grant.revoked event; a reversed refund reinstates it")
    func refundAndReversal() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let purchase = try await Self.granted(pipeline, "com.example.pro", type: .nonConsumable, user: "u1")
            #expect(try await pipeline.get("/v1/users/u1/entitlements").json["entitlements"] as? [Any] != nil)

            _ = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId, reason: 1)
            #expect(await Self.notificationsApplied(pipeline, 1))
            let revoked = try await pipeline.pool.query(
                "SELECT revoked_at, revocation_reason, revoked_by_notification IS NOT NULL AS by_notification FROM receiptq.grants")
            try #require(revoked.count == 1, "the grant's row stays")
            #expect(try revoked[0].decodeIfPresent("revoked_at", as: Date.self) != nil)
            #expect(try revoked[0].decode("revocation_reason", as: String.self) == "refunded by Apple (an issue in the app)")
            #expect(try revoked[0].decode("by_notification", as: Bool.self))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.revoked' AND user_id = 'u1'") == 1)
            let entitlements = try await pipeline.get("/v1/users/u1/entitlements").json["entitlements"] as? [[String: Any]]
            #expect(entitlements?.isEmpty == true, "a refunded purchase is no entitlement")
            // Apple heard 200 once the notification was durable: it sends no retry.
            let sent = try #require(pipeline.fake.serverAPI.notifications.all().last)
            #expect(sent.delivered && sent.attempts.count == 1)

            _ = try pipeline.fake.serverAPI.reverseRefund(transactionId: purchase.transactionId)
            #expect(await Self.notificationsApplied(pipeline, 2))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE revoked_at IS NULL") == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.reinstated'") == 1)
            let back = try await pipeline.get("/v1/users/u1/entitlements").json["entitlements"] as? [[String: Any]]
            #expect(back?.first?["product_id"] as? String == "com.example.pro")
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("a refund that arrives before the app submits the purchase makes it not paid, never granted")
    func refundBeforeSubmission() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let purchase = try pipeline.buy("com.example.coins", type: .consumable, customer: "c2")
            let signedBeforeRefund = pipeline.signed(purchase)
            _ = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId)
            #expect(await Self.notificationsApplied(pipeline, 1))
            let runner = try pipeline.startRunner(serverAPI: false)
            let id = try #require(try await pipeline.submit(signed: signedBeforeRefund, user: "u2").id)
            let status = try await pipeline.final(id)
            #expect(status["verdict"] as? String == "not_paid", "\(status)")
            #expect((status["reason"] as? String)?.contains("refunded") == true, "\(status)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 0)
            try await runner.stop()
            try await notifications.stop()
        }
    }

    @Test("Apple's retries are stored once (notificationUUID); forgeries, other apps' and non-notifications get 422 and are not stored")
    func dedupeAndForgeries() async throws {
        try await withPipeline { pipeline in
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let payload = pipeline.fake.serverAPI.signedNotification("REFUND", about: purchase, signedAt: Date())
            let first = try await pipeline.postNotification(payload)
            #expect(first.status == 200 && first.json["stored"] as? Bool == true, "\(first.json)")
            let retry = try await pipeline.postNotification(payload)
            #expect(retry.status == 200 && retry.json["stored"] as? Bool == false, "\(retry.json)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications") == 1)

            // Another payload in place of the one Apple signed.
            let other = pipeline.fake.serverAPI.signedNotification("REFUND_REVERSED", about: purchase, signedAt: Date())
            let parts = payload.split(separator: ".")
            let swapped = [parts[0], other.split(separator: ".")[1], parts[2]].joined(separator: ".")
            // Signed by a CA we do not trust, laid out as Apple's chain.
            let stranger = try FakeSigner(pki: TestPKI(), bundleId: StoreKitPipeline.bundleId).signTransaction(purchase)
            // Genuine signed data, but a transaction, not a notification.
            let transaction = pipeline.signed(purchase)
            for (name, forged) in [("swapped payload", swapped), ("untrusted CA", stranger), ("a transaction", transaction), ("garbage", "a.b.c")] {
                let answer = try await pipeline.postNotification(forged)
                #expect(answer.status == 422, "\(name): \(answer.status)")
                #expect(answer.contentType == "application/problem+json", "\(name)")
            }
            let malformed = try await pipeline.http.post(url: pipeline.api.baseURL + "/v1/apple/notifications",
                                                         headers: ["Content-Type": "application/json"], body: Array("{\"x\":1}".utf8))
            #expect(malformed.status == 400)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications") == 1)
        }
    }

    /// The API takes the JWS inside a notification on the notification's signature, which covers
    /// their bytes; the worker that applies it verifies each on its own. So a REFUND Apple's key
    /// signed around a transaction whose own signature does not verify is stored (Apple retries
    /// nothing), and then failed by the worker, never applied: the grant stays.
    @Test("intake takes a notification's inner JWS on its signature; the worker verifies it on its own before applying")
    func innerSignatureCheckedWhereApplied() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let purchase = try await Self.granted(pipeline, "com.example.pro", type: .nonConsumable, user: "u7")
            let inner = pipeline.signed(purchase).split(separator: ".")
            let other = pipeline.signed(try pipeline.buy("com.example.coins", type: .consumable, customer: "c7")).split(separator: ".")
            let serverAPI = pipeline.fake.serverAPI
            var notification = NotificationPayload()   // what the fake sends for a refund, its transaction's signature swapped
            notification.notificationType = "REFUND"
            notification.notificationUUID = UUID().uuidString.lowercased()
            notification.version = "2.0"
            notification.signedDate = Int64(Date().timeIntervalSince1970 * 1000)
            notification.data = NotificationData()
            notification.data?.appAppleId = serverAPI.configuration.appAppleId
            notification.data?.bundleId = serverAPI.configuration.bundleId
            notification.data?.environment = AppStoreEnvironment(rawValue: purchase.environment.rawValue)
            notification.data?.signedTransactionInfo = [inner[0], inner[1], other[2]].joined(separator: ".")
            let posted = try serverAPI.signer.pki.sign(notification)

            let answer = try await pipeline.postNotification(posted)
            #expect(answer.status == 200 && answer.json["stored"] as? Bool == true, "\(answer.status) \(answer.json)")
            #expect(answer.json["quarantined"] == nil, "stored to be applied, not held: \(answer.json)")
            let notifications = try pipeline.startNotificationRunner()
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE state = 'failed'")) == 1
            })
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE revoked_at IS NULL") == 1, "the grant stays")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.revoked'") == 0)
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("out of order: an older notification applied after a newer one changes nothing")
    func olderNeverOverwritesNewer() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let purchase = try await Self.granted(pipeline, "com.example.pro", type: .nonConsumable, user: "u3")
            let refunded = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId)   // no URL: not sent
            let now = Date()
            let newerRefund = pipeline.fake.serverAPI.signedNotification("REFUND", about: refunded, signedAt: now)
            let olderReversal = pipeline.fake.serverAPI.signedNotification("REFUND_REVERSED", about: purchase, signedAt: now.addingTimeInterval(-3600))
            #expect(try await pipeline.postNotification(newerRefund).status == 200)
            #expect(await Self.notificationsApplied(pipeline, 1))
            #expect(try await pipeline.postNotification(olderReversal).status == 200)
            #expect(await Self.notificationsApplied(pipeline, 2))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE revoked_at IS NOT NULL") == 1)
            let outcome = try #require(try await pipeline.pool.query(
                "SELECT outcome FROM receiptq.notifications WHERE notification_type = 'REFUND_REVERSED'").first).decode("outcome", as: String.self)
            #expect(outcome.contains("older than what is recorded"), "\(outcome)")
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("a renewal Apple notifies is granted to the subscriber as a new period; its state and a consumption request are recorded")
    func renewalAndConsumptionRequest() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let first = try await Self.granted(pipeline, "com.example.monthly", type: .autoRenewable, user: "u4", expiresInSeconds: 3600)
            let renewal = try pipeline.fake.serverAPI.renew(originalTransactionId: first.originalTransactionId, expiresInSeconds: 7200)
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'u4'")) == 2
            }, "the renewal's period is granted to the subscriber")
            // Delivered twice (Apple's retry: the same notification), and again as another
            // notification about the same period, late: still one grant per period.
            let sent = try #require(pipeline.fake.serverAPI.notifications.all().last { $0.notificationType == "DID_RENEW" })
            let retry = try await pipeline.postNotification(sent.signedPayload)
            #expect(retry.status == 200 && retry.json["stored"] as? Bool == false)
            let late = pipeline.fake.serverAPI.signedNotification("DID_RENEW", about: renewal, signedAt: Date().addingTimeInterval(-600))
            #expect(try await pipeline.postNotification(late).json["stored"] as? Bool == true)
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("""
                    SELECT count(*) AS count FROM receiptq.notifications WHERE notification_type = 'DID_RENEW' AND state = 'applied'
                    """)) == 2
            }, "the late copy is applied")
            // Its period (re-signed, the same transaction for the same user) is the subscriber's job already.
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE user_id = 'u4'") == 2)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'u4'") == 2)
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.subscriptions WHERE original_transaction_id = $1 AND user_id = 'u4' AND status = 1
                """, [first.originalTransactionId]) == 1)
            let entitlements = try await pipeline.get("/v1/users/u4/entitlements").json["entitlements"] as? [[String: Any]]
            #expect(entitlements?.first?["subscription_status"] as? Int == 1)

            let coins = try await Self.granted(pipeline, "com.example.coins", type: .consumable, user: "u4")
            try pipeline.fake.serverAPI.requestConsumption(transactionId: coins.transactionId)
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.consumption_requests WHERE user_id = 'u4'")) == 1
            })
            let due = try #require(try await pipeline.pool.query("""
                SELECT extract(epoch FROM c.deadline - n.signed_date)::int AS seconds
                FROM receiptq.consumption_requests c JOIN receiptq.notifications n USING (notification_uuid)
                """).first).decode("seconds", as: Int.self)
            #expect(due == 12 * 3600)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'consumption.requested'") == 1)
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("a consumption request is answered through the Server API only for a user who consented, with the ledger's facts")
    func consumptionAnsweredOnlyWithConsent() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let responder = try pipeline.startConsumptionResponder()
            let consented = try await pipeline.put("/v1/users/yes/consumption-consent", ["consented": true])
            #expect(consented.status == 200 && consented.json["consented"] as? Bool == true, "\(consented.json)")
            #expect(try await pipeline.put("/v1/users/no/consumption-consent", ["consented": false]).status == 200)
            let coinsYes = try await Self.granted(pipeline, "com.example.coins", type: .consumable, user: "yes")
            let coinsNo = try await Self.granted(pipeline, "com.example.coins", type: .consumable, user: "no")
            let coinsUnknown = try await Self.granted(pipeline, "com.example.coins", type: .consumable, user: "silent")
            for purchase in [coinsYes, coinsNo, coinsUnknown] {
                try pipeline.fake.serverAPI.requestConsumption(transactionId: purchase.transactionId)
            }
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.consumption_requests WHERE state IN ('sent', 'no_consent')")) == 3
            })
            let states = try await pipeline.pool.query("SELECT user_id, state FROM receiptq.consumption_requests ORDER BY user_id")
            #expect(try states.map { "\(try $0.decode("user_id", as: String.self))=\(try $0.decode("state", as: String.self))" }
                    == ["no=no_consent", "silent=no_consent", "yes=sent"])
            let reports = pipeline.fake.serverAPI.consumptionReports()
            #expect(reports.map(\.transactionId) == [coinsYes.transactionId], "Apple hears only of the consenting user's purchase")
            let body = try #require(reports.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] })
            #expect(reports.first?.version == 2, "Send Consumption Information v2")
            #expect(body["customerConsented"] as? Bool == true)
            #expect(body["deliveryStatus"] as? String == "DELIVERED", "granted and not revoked: delivered")
            #expect(body["refundPreference"] as? String == "DECLINE", "the responder's policy: decline what was delivered")
            #expect(body["consumptionPercentage"] == nil, "how much was consumed is the backend's to know: not declared")
            try await responder.stop()
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("Apple cannot reach the API for a while: the history recovery stores what was missed, each once, and it is applied")
    func historyRecoveryFillsTheGap() async throws {
        // Apple's notifications go to a port nothing listens on (the API is down), and the fake
        // gives up after its retries; one notification did arrive before the outage.
        let deadURL = "http://127.0.0.1:\(try FreePort.pick())/v1/apple/notifications"
        try await withPipeline(serverAPI: { $0.notificationURL = deadURL; $0.notificationRetryCompression = 3600 * 1000 }) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let pro = try await Self.granted(pipeline, "com.example.pro", type: .nonConsumable, user: "u5")
            let gems = try await Self.granted(pipeline, "com.example.gems", type: .consumable, user: "u5")
            _ = try pipeline.fake.serverAPI.refund(transactionId: gems.transactionId)
            let received = try #require(pipeline.fake.serverAPI.notifications.all().last)
            #expect(try await pipeline.postNotification(received.signedPayload).status == 200)   // it arrived after all
            _ = try pipeline.fake.serverAPI.refund(transactionId: pro.transactionId)
            try pipeline.fake.serverAPI.requestConsumption(transactionId: gems.transactionId)
            #expect(await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                pipeline.fake.serverAPI.notifications.all().allSatisfy { $0.finished && !$0.delivered }
            }, "Apple gave up on the down API")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications") == 1)

            let (recovery, finish) = try await pipeline.notificationRecovery()
            let run = try #require(await recovery.recover(.production, minimumGap: .zero))
            #expect(run.read == 3 && run.recovered == 2 && run.refused == 0, "\(run)")
            let again = try #require(await recovery.recover(.production, minimumGap: .zero))
            #expect(again.recovered == 0, "read twice (the overlap), stored once")
            await finish()
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE source = 'history'") == 2)
            #expect(await Self.notificationsApplied(pipeline, 3))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE revoked_at IS NOT NULL") == 2)
            let health = try #require(try await pipeline.pool.query(
                "SELECT recovered_from_history, history_last_error FROM receiptq.notification_health WHERE environment = 'Production'").first)
            #expect(try health.decode("recovered_from_history", as: Int.self) == 2)
            #expect(try health.decodeIfPresent("history_last_error", as: String.self) == nil)
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("receiptq notifications test: Apple's TEST notification is followed until it is stored and applied here")
    func testCommandEndToEnd() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rq-notify-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = directory.appendingPathComponent("key.p8"), root = directory.appendingPathComponent("root.pem")
            try pipeline.keyPEM.write(to: key, atomically: true, encoding: .utf8)
            try pipeline.fake.serverAPI.rootCertificatePEM.write(to: root, atomically: true, encoding: .utf8)
            let result = try await ChildProcess.run(arguments: [
                "notifications", "test", "--database-url", try await pipeline.database.connectionString(as: .worker),
                "--app-store-key-file", key.path, "--app-store-key-id", "KEY1", "--app-store-issuer-id", "issuer-1",
                "--bundle-id", StoreKitPipeline.bundleId, "--signed-data-root", root.path, "--trust-test-roots",
                "--server-api-production-url", pipeline.fake.serverAPIProductionURL, "--server-api-sandbox-url", pipeline.fake.serverAPISandboxURL,
                "--wait", "30s",
            ], timeout: .seconds(60))
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("Apple's attempt: SUCCESS"), "\(result.stdout)")
            #expect(result.stdout.contains(": applied"), "\(result.stdout)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.notifications WHERE notification_type = 'TEST' AND state = 'applied'") == 1)
            try await notifications.stop()
        }
    }

    @Test("a consumption request whose 12-hour window closed unanswered is ended expired by the scheduler, never sent")
    func unansweredConsumptionRequestsExpire() async throws {
        try await withPipeline { pipeline in
            try await pipeline.pool.query("""
                INSERT INTO receiptq.consumption_requests (notification_uuid, transaction_id, environment, deadline)
                VALUES (gen_random_uuid(), 'late', 'Production', now() - interval '1 second'),
                       (gen_random_uuid(), 'open', 'Production', now() + interval '1 hour')
                """)
            let scheduler = PostgresPool(configuration: try await pipeline.database.configuration(as: .scheduler), size: 1)
            defer { scheduler.shutdown() }
            #expect(try await scheduler.withConnection { try ExpireConsumptionRequests.run(limit: 100, on: $0) } == 1)
            let states = try await pipeline.pool.query("SELECT transaction_id, state FROM receiptq.consumption_requests ORDER BY transaction_id")
            #expect(try states.map { "\(try $0.decode("transaction_id", as: String.self))=\(try $0.decode("state", as: String.self))" }
                    == ["late=expired", "open=queued"])
        }
    }
}
