import AppleSignedData
import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The customer's app transaction (StoreKit 2's `AppTransaction`): the backend submits what
/// `AppTransaction.shared` gave the app; the API verifies it like any signed data and keeps it for
/// that user alone; the version first downloaded is what a paid-to-free app decides with; and
/// RESCIND_CONSENT, which names the Apple Account by its app transaction, reaches that user.
@Suite("StoreKit 2 app transactions", .serialized)
struct AppTransactionTests {
    @Test("kept for the first user who submits it: the original version and date as Apple signed them; another user is refused")
    func keptForItsFirstUser() async throws {
        try await withPipeline { pipeline in
            let paid = pipeline.fake.serverAPI.signedAppTransaction(customer: "early-bird", originalApplicationVersion: "0.9")
            let first = try await pipeline.post("/v1/users/ann/app-transactions", ["signed_app_transaction": paid.jws])
            #expect(first.status == 201, "\(first.json)")
            #expect(first.json["app_transaction_id"] as? String == paid.appTransactionId)
            #expect(first.json["original_application_version"] as? String == "0.9")
            #expect(first.json["environment"] as? String == "Production")
            #expect(first.json["bundle_id"] as? String == StoreKitPipeline.bundleId)
            #expect(first.json["original_platform"] as? String == "iOS")
            #expect(first.json["original_purchase_date"] is String && first.json["user_id"] as? String == "ann")
            // Again, even re-signed later: the same record, 200.
            let again = try await pipeline.post("/v1/users/ann/app-transactions",
                                                ["signed_app_transaction": pipeline.fake.serverAPI.signedAppTransaction(customer: "early-bird").jws])
            #expect(again.status == 200 && again.json["original_application_version"] as? String == "0.9", "\(again.json)")
            // The same download under another account: refused, and nothing changes.
            let replay = try await pipeline.post("/v1/users/mallory/app-transactions", ["signed_app_transaction": paid.jws])
            #expect(replay.status == 403 && replay.json["type"] as? String == "urn:receiptq:problem:app-transaction-not-owned", "\(replay.json)")
            let listed = try await pipeline.get("/v1/users/ann/app-transactions").json
            let records = try #require(listed["app_transactions"] as? [[String: Any]])
            #expect(records.count == 1 && records.first?["app_transaction_id"] as? String == paid.appTransactionId)
            #expect((try await pipeline.get("/v1/users/mallory/app-transactions").json["app_transactions"] as? [Any])?.isEmpty == true)
            // A customer who downloaded the app free has their own, kept for their own user.
            let free = pipeline.fake.serverAPI.signedAppTransaction(customer: "newcomer")
            let newcomer = try await pipeline.post("/v1/users/ben/app-transactions", ["signed_app_transaction": free.jws])
            #expect(newcomer.status == 201 && newcomer.json["original_application_version"] as? String == "1")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.app_transactions") == 2)
        }
    }

    @Test("a tampered payload, something not a JWS, or a transaction in its place is refused with 422 and never stored")
    func forgeriesAreRefused() async throws {
        try await withPipeline { pipeline in
            let genuine = pipeline.fake.serverAPI.signedAppTransaction(customer: "c1").jws
            let parts = genuine.split(separator: ".").map(String.init)
            let payload = try #require(Self.base64URL(parts[1]))
            var claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            claims["originalApplicationVersion"] = "0.1"
            let tampered = [parts[0], Self.base64URL(try JSONSerialization.data(withJSONObject: claims)), parts[2]].joined(separator: ".")
            let transaction = pipeline.signed(try pipeline.buy("com.example.coins"))
            for (name, jws) in [("tampered", tampered), ("not a JWS", "a.b.c"), ("a transaction", transaction)] {
                let answer = try await pipeline.post("/v1/users/ann/app-transactions", ["signed_app_transaction": jws])
                #expect(answer.status == 422, "\(name): \(answer.status) \(answer.json)")
                #expect(answer.json["type"] as? String == "urn:receiptq:problem:invalid-app-transaction", "\(name): \(answer.json)")
            }
            let missing = try await pipeline.post("/v1/users/ann/app-transactions", [:])
            #expect(missing.status == 400 && missing.json["field"] as? String == "signed_app_transaction")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.app_transactions") == 0)
        }
    }

    @Test("RESCIND_CONSENT reaches the user who submitted the Apple Account's app transaction")
    func rescindedConsentNamesTheUser() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let notifications = try pipeline.startNotificationRunner()
            let purchase = try pipeline.buy("com.example.coins", customer: "family-kid")
            let app = pipeline.fake.serverAPI.signedAppTransaction(customer: "family-kid")
            #expect(try await pipeline.post("/v1/users/kid-account/app-transactions", ["signed_app_transaction": app.jws]).status == 201)
            let uuid = try pipeline.fake.serverAPI.sendNotification(.init(notificationType: "RESCIND_CONSENT", transactionId: purchase.transactionId))
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'consent.rescinded' AND user_id = 'kid-account'")) == 1
            }, "notification \(uuid)")
            let data = try await pipeline.pool.query("SELECT body->>'app_transaction_id' AS id FROM receiptq.events WHERE type = 'consent.rescinded'")
            #expect(try data.first?.decode("id", as: String.self) == app.appTransactionId)
            try await notifications.stop()
        }
    }

    static func base64URL(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
