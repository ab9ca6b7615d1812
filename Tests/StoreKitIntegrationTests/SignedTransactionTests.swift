import AppleSignedData
import AppleTestPKI
import FakeAppStore
import Foundation
import ReceiptQueue
import Testing

/// StoreKit 2 purchases over HTTP: `POST /v1/transactions` with `transaction.jwsRepresentation`,
/// checked by the API before it answers, verified again by a worker with no call to Apple, and
/// written to the one ledger receipts use.
@Suite("StoreKit 2 signed transactions", .serialized)
struct SignedTransactionTests {
    @Test("each product type is granted once; the same JWS again, or re-signed (a restore, a re-sync), is the same job")
    func eachTypeOnce() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let purchases = [
                try pipeline.buy("com.example.coins", type: .consumable),
                try pipeline.buy("com.example.pro", type: .nonConsumable),
                try pipeline.buy("com.example.monthly", type: .autoRenewable),
                try pipeline.buy("com.example.season", type: .nonRenewing),
            ]
            for purchase in purchases {
                let jws = pipeline.signed(purchase)
                let accepted = try await pipeline.submit(signed: jws, user: "u1")
                #expect(accepted.status == 202, "\(purchase.type): \(accepted.json)")
                let id = try #require(accepted.id)
                let status = try await pipeline.final(id)
                #expect(status["verdict"] as? String == "delivered", "\(purchase.type): \(status)")
                #expect(status["kind"] as? String == "signed_transaction")
                let granted = try #require(status["purchase"] as? [String: Any])
                #expect(granted["product_id"] as? String == purchase.productId)
                #expect(granted["transaction_id"] as? String == purchase.transactionId)

                let again = try await pipeline.submit(signed: jws, user: "u1")
                #expect(again.status == 200 && again.id == id, "the same JWS is the same job")

                // StoreKit 2 hands a restored or re-synced purchase over with a new signedDate: what
                // Apple signed (transaction and environment) deduplicates, not the signature's bytes.
                let restored = try await pipeline.submit(signed: pipeline.signed(purchase, at: Date().addingTimeInterval(5)), user: "u1")
                #expect(restored.status == 200 && restored.id == id, "\(purchase.type): \(restored.json)")
                #expect(restored.json["verdict"] as? String == "delivered")
            }
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 4)
            let types = try await pipeline.pool.query("SELECT product_type, purchase_key, storefront, price, currency FROM receiptq.grants ORDER BY product_type")
            #expect(try types.map { try $0.decode("product_type", as: String.self) } == ["auto_renewable", "consumable", "non_consumable", "non_renewing"])
            #expect(try types.allSatisfy { try $0.decode("storefront", as: String.self) == "USA" && $0.decode("currency", as: String.self) == "USD" })
            try await runner.stop()
        }
    }

    @Test("a forgery is answered 422 problem+json at once and never stored")
    func forgeriesRefused() async throws {
        try await withPipeline { pipeline in
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let genuine = pipeline.signed(purchase)
            // Signed by a CA we do not trust, with the same layout as Apple's chain.
            let stranger = try FakeSigner(pki: TestPKI(), bundleId: StoreKitPipeline.bundleId).signTransaction(purchase)
            // Apple's signature over one payload, another payload put in its place.
            let other = pipeline.signed(try pipeline.buy("com.example.gems", type: .consumable))
            let parts = genuine.split(separator: ".")
            let swapped = [parts[0], other.split(separator: ".")[1], parts[2]].joined(separator: ".")
            // Signed by the trusted CA, for another app.
            let otherApp = try FakeSigner(pki: pipeline.fake.serverAPI.signer.pki, bundleId: "com.other.app").signTransaction(purchase)
            for (name, jws) in [("untrusted CA", stranger), ("payload swapped", swapped), ("another app", otherApp),
                                ("not a JWS", "not.a.jws"), ("garbage", "eyJhbGciOiJFUzI1NiJ9")] {
                let answer = try await pipeline.submit(signed: jws, user: "u1")
                #expect(answer.status == 422, "\(name): \(answer.status) \(answer.json)")
                #expect(answer.contentType == "application/problem+json", "\(name)")
                #expect(answer.json["type"] as? String == "urn:receiptq:problem:invalid-signed-transaction", "\(name)")
                #expect((answer.json["detail"] as? String)?.contains(jws) == false, "\(name): the payload is never echoed")
            }
            let mismatch = try await pipeline.submit(signed: genuine, user: "u1", extra: ["transaction_id": "not-the-same"])
            #expect(mismatch.status == 400 && mismatch.json["field"] as? String == "transaction_id")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs") == 0)
        }
    }

    @Test("an API started without bundle ids refuses signed transactions with a 422 that says why")
    func notConfigured() async throws {
        try await withPipeline(api: { $0.signedTransactions = nil }) { pipeline in
            let answer = try await pipeline.submit(signed: pipeline.signed(try pipeline.buy("com.example.pro")), user: "u1")
            #expect(answer.status == 422)
            #expect((answer.json["detail"] as? String)?.contains("--bundle-ids") == true)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs") == 0)
        }
    }

    @Test("a refunded or revoked transaction is not paid, and gives no entitlement")
    func revokedNotPaid() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let refunded = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId, reason: 1)
            let answer = try await pipeline.submit(signed: pipeline.signed(refunded), user: "u1")
            let status = try await pipeline.final(try #require(answer.id))
            #expect(status["verdict"] as? String == "not_paid", "\(status)")
            #expect((status["reason"] as? String)?.contains("refunded or revoked") == true)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 0)
            let entitlements = try await pipeline.get("/v1/users/u1/entitlements").json
            #expect((entitlements["entitlements"] as? [Any])?.isEmpty == true)
            try await runner.stop()
        }
    }

    @Test("a worker that trusts test roots (--trust-test-roots) marks every grant it makes; one that trusts Apple's marks none")
    func grantsUnderTestRootsAreMarked() async throws {
        try await withPipeline { pipeline in
            let test = try pipeline.startRunner(serverAPI: false, ownership: OwnershipPolicy(testRoots: true))
            let first = try pipeline.buy("com.example.coins", type: .consumable)
            #expect(try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(first), user: "u1").id))["verdict"]
                    as? String == "delivered")
            try await test.stop()
            let apple = try pipeline.startRunner(serverAPI: false)
            let second = try pipeline.buy("com.example.coins", type: .consumable)
            #expect(try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(second), user: "u1").id))["verdict"]
                    as? String == "delivered")
            try await apple.stop()
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE signed_under = 'test-roots' AND transaction_id = $1",
                                             [first.transactionId]) == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE signed_under = 'apple' AND transaction_id = $1",
                                             [second.transactionId]) == 1)
        }
    }

    @Test("a family member's access is their own grant, FAMILY_SHARED, beside the purchaser's")
    func familySharing() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable, customer: "parent")
            let shared = try pipeline.fake.serverAPI.familyShare(transactionId: purchase.transactionId, with: "child")
            let parent = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: "parent").id))
            let child = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(shared), user: "child").id))
            #expect(parent["verdict"] as? String == "delivered")
            #expect(child["verdict"] as? String == "delivered", "\(child)")
            #expect((child["purchase"] as? [String: Any])?["ownership_type"] as? String == "FAMILY_SHARED")
            let keys = try await pipeline.pool.query("SELECT user_id, purchase_key FROM receiptq.grants ORDER BY user_id")
            #expect(try keys.map { try $0.decode("user_id", as: String.self) } == ["child", "parent"])
            // Keyed by the family member's own transactions as Apple numbers them, never by our user.
            #expect(try keys[0].decode("purchase_key", as: String.self) == "family:purchase:" + shared.originalTransactionId)
            try await runner.stop()
        }
    }

    @Test("renewals are periods of their own, each granted once; entitlements show the latest period's expiry")
    func renewals() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let first = try pipeline.buy("com.example.monthly", type: .autoRenewable, expiresInSeconds: 3_600)
            let renewal = try pipeline.fake.serverAPI.renew(originalTransactionId: first.originalTransactionId, expiresInSeconds: 3_600)
            for period in [first, renewal, first] {
                let status = try await pipeline.final(try #require(try await pipeline.submit(
                    signed: pipeline.signed(period, at: Date().addingTimeInterval(Double.random(in: 0...100))), user: "u1").id))
                #expect(["delivered", "already_delivered"].contains(status["verdict"] as? String), "\(status)")
            }
            let keys = try await pipeline.pool.query("SELECT purchase_key FROM receiptq.grants ORDER BY purchase_key")
            #expect(try keys.map { try $0.decode("purchase_key", as: String.self) }.sorted()
                    == ["period:\(first.webOrderLineItemId ?? "")", "period:\(renewal.webOrderLineItemId ?? "")"].sorted())
            let list = try #require(try await pipeline.get("/v1/users/u1/entitlements").json["entitlements"] as? [[String: Any]])
            #expect(list.count == 1)
            #expect(list.first?["transaction_id"] as? String == renewal.transactionId)
            #expect(list.first?["product_type"] as? String == "auto_renewable")
            let expires = try #require(list.first?["expires_date"] as? String)
            let expected = Date(timeIntervalSince1970: Double(try #require(renewal.expiresDate)) / 1000)
            #expect(abs((ISO8601DateFormatter().date(from: expires) ?? .distantPast).timeIntervalSince(expected)) < 1)
            try await runner.stop()
        }
    }
}
