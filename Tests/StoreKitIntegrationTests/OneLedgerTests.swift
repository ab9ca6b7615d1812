import AppStore
import FakeAppStore
import Foundation
import Testing

/// One ledger whichever way a purchase arrives — a receipt through verifyReceipt, a StoreKit 2
/// signed transaction, a transaction id through the App Store Server API — and orders matched by
/// StoreKit 2's appAccountToken exactly.
@Suite("One ledger for receipts and StoreKit 2", .serialized)
struct OneLedgerTests {
    /// A legacy receipt (the fake's verifyReceipt understands it) holding these transactions.
    static func receipt(_ transactions: [(id: String, original: String, product: String)]) -> String {
        FakeReceipt(bundleID: StoreKitPipeline.bundleId, environment: .production,
                    inApp: transactions.map { FakeTransaction(transactionID: $0.id, originalTransactionID: $0.original, productID: $0.product) })
            .base64()
    }

    @Test("a receipt and a signed transaction of one purchase are granted once; a restore's new transaction id too")
    func receiptAndSignedTransaction() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let receipts = try pipeline.startReceiptWorker()
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let viaReceipt = try await pipeline.post("/v1/receipts", [
                "receipt_data": Self.receipt([(purchase.transactionId, purchase.originalTransactionId, purchase.productId)]),
                "transaction_id": purchase.transactionId, "user_id": "u1",
            ])
            let first = try await pipeline.final(try #require(viaReceipt.id))
            let second = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: "u1").id))
            // The original StoreKit restores with a new transaction id and the same original one.
            let restore = try await pipeline.post("/v1/receipts", [
                "receipt_data": Self.receipt([("restore-\(purchase.transactionId)", purchase.originalTransactionId, purchase.productId)]),
                "transaction_id": "restore-\(purchase.transactionId)", "user_id": "u1",
            ])
            let third = try await pipeline.final(try #require(restore.id))
            #expect(first["verdict"] as? String == "delivered", "\(first)")
            #expect(second["verdict"] as? String == "already_delivered", "\(second)")
            #expect(third["verdict"] as? String == "already_delivered", "\(third)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 1)
            try await runner.stop()
            try await receipts.stop()
        }
    }

    @Test("a transaction's appAccountToken fulfils its own order, not the oldest; without one, the oldest pending order")
    func appAccountTokenMatching() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let older = try await pipeline.post("/v1/orders", ["order_id": "o-older", "user_id": "u1", "product_id": "com.example.pack"])
            #expect(older.status == 201)
            let chosen = UUID()
            let mine = try await pipeline.post("/v1/orders", ["order_id": "o-mine", "user_id": "u1", "product_id": "com.example.pack",
                                                              "app_account_token": chosen.uuidString])
            #expect(mine.status == 201)
            #expect(UUID(uuidString: mine.json["app_account_token"] as? String ?? "") == chosen, "a token given is kept")
            #expect(UUID(uuidString: older.json["app_account_token"] as? String ?? "") != nil, "one is made when none is given")

            let tokened = try pipeline.buy("com.example.pack", type: .consumable, appAccountToken: chosen)
            let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(tokened), user: "u1").id))
            #expect((status["purchase"] as? [String: Any])?["order_id"] as? String == "o-mine", "\(status)")

            let plain = try pipeline.buy("com.example.pack", type: .consumable)
            let fallback = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(plain), user: "u1").id))
            #expect((fallback["purchase"] as? [String: Any])?["order_id"] as? String == "o-older", "\(fallback)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.orders WHERE state = 'fulfilled'") == 2)

            let reused = try await pipeline.post("/v1/orders", ["order_id": "o-other", "user_id": "u1", "product_id": "com.example.pack",
                                                                "app_account_token": chosen.uuidString])
            #expect(reused.status == 409, "a token belongs to one order")
            let bad = try await pipeline.post("/v1/orders", ["order_id": "o-bad", "user_id": "u1", "product_id": "p", "app_account_token": "nope"])
            #expect(bad.status == 400 && bad.json["field"] as? String == "app_account_token")
            try await runner.stop()
        }
    }

    @Test("a receipt submitted with the order's app_account_token fulfils that order")
    func receiptWithToken() async throws {
        try await withPipeline { pipeline in
            let receipts = try pipeline.startReceiptWorker()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-older", "user_id": "u1", "product_id": "com.example.gems"])
            let order = try await pipeline.post("/v1/orders", ["order_id": "o-token", "user_id": "u1", "product_id": "com.example.gems"])
            let token = try #require(order.json["app_account_token"] as? String)
            let answer = try await pipeline.post("/v1/receipts", [
                "receipt_data": Self.receipt([("r-1", "r-1", "com.example.gems")]), "transaction_id": "r-1", "user_id": "u1",
                "app_account_token": token,
            ])
            let status = try await pipeline.final(try #require(answer.id))
            #expect((status["purchase"] as? [String: Any])?["order_id"] as? String == "o-token", "\(status)")
            try await receipts.stop()
        }
    }

    @Test("entitlements: non-consumables and unexpired subscription periods, never consumables, lapsed or revoked ones")
    func entitlements() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let bought = [
                try pipeline.buy("com.example.pro", type: .nonConsumable),
                try pipeline.buy("com.example.coins", type: .consumable),
                try pipeline.buy("com.example.monthly", type: .autoRenewable, expiresInSeconds: 3_600),
                try pipeline.fake.serverAPI.buy(FakePurchaseRequest(
                    productId: "com.example.lapsed", type: FakeProductType.autoRenewable.rawValue, customer: "customer-1",
                    expiresInSeconds: 86_400, purchaseDate: now - 10 * 86_400_000, notify: false)),
                try pipeline.buy("com.example.season", type: .nonRenewing, expiresInSeconds: 86_400),
                try pipeline.buy("com.example.theme", type: .nonConsumable),
            ]
            for purchase in bought {
                let status = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(purchase), user: "u1").id))
                #expect(status["verdict"] as? String == "delivered", "\(purchase.productId): \(status)")
            }
            // A refund recorded on a grant (as the notifications path records it) ends the entitlement.
            _ = try await pipeline.pool.query("UPDATE receiptq.grants SET revoked_at = now(), revocation_reason = 'refund' WHERE product_id = $1",
                                              ["com.example.theme"])
            let answer = try await pipeline.get("/v1/users/u1/entitlements")
            #expect(answer.status == 200)
            let list = try #require(answer.json["entitlements"] as? [[String: Any]])
            #expect(list.compactMap { $0["product_id"] as? String } == ["com.example.monthly", "com.example.pro", "com.example.season"])
            #expect(answer.json["as_of"] is String)
            #expect(try await pipeline.get("/v1/users/nobody/entitlements").json["entitlements"] as? [Any] != nil)
            let long = String(repeating: "x", count: 300)
            #expect(try await pipeline.get("/v1/users/\(long)/entitlements").status == 400)
            try await runner.stop()
        }
    }
}
