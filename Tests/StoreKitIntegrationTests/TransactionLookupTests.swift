import FakeAppStore
import Foundation
import Testing

/// Apps still on the original StoreKit, verified without verifyReceipt: the client's transaction
/// id through the App Store Server API's Get Transaction Info, under the fleet's rate budget, with
/// the retry, breaker and timeout machinery verifyReceipt jobs have. A bare transaction id is a
/// claim: these come from a backend token trusted for claims (`OwnershipTests` covers the rest).
@Suite("Transaction ids through the App Store Server API", .serialized)
struct TransactionLookupTests {
    @Test("transaction ids are granted once from Apple's signed answer; sandbox ones found after production; unknown ones not paid")
    func lookups() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner()
            let production = try (0..<3).map { _ in try pipeline.buy("com.example.coins", type: .consumable) }
            let sandbox = try pipeline.buy("com.example.pro", type: .nonConsumable, environment: "Sandbox")
            var ids: [(String, Int)] = []
            for purchase in production + [sandbox] {
                let answer = try await pipeline.post("/v1/transactions", ["transaction_id": purchase.transactionId, "user_id": "u1"],
                                                     trusted: true)
                #expect(answer.status == 202)
                ids.append((purchase.transactionId, try #require(answer.id)))
            }
            for (transaction, id) in ids {
                let status = try await pipeline.final(id)
                #expect(status["verdict"] as? String == "delivered", "\(transaction): \(status)")
                #expect(status["kind"] as? String == "transaction_id")
            }
            #expect((try await pipeline.final(ids[3].1))["environment"] as? String == "Sandbox")

            let again = try await pipeline.post("/v1/transactions", ["transaction_id": production[0].transactionId, "user_id": "u1"],
                                                trusted: true)
            #expect(again.status == 200 && again.id == ids[0].1, "the same id for the same user is the same job")
            let otherUser = try await pipeline.post("/v1/transactions", ["transaction_id": production[0].transactionId, "user_id": "u2"],
                                                    trusted: true)
            let taken = try await pipeline.final(try #require(otherUser.id))
            #expect(taken["verdict"] as? String == "owned_by_another_user", "\(taken)")
            #expect(taken["purchase"] == nil, "another account's purchase is not shown")

            let unknown = try await pipeline.post("/v1/transactions", ["transaction_id": "9999999999", "user_id": "u1"], trusted: true)
            let refused = try await pipeline.final(try #require(unknown.id))
            #expect(refused["verdict"] as? String == "not_paid", "\(refused)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 4)
            try await runner.stop()
        }
    }

    @Test("under Apple's 429s, 5xx answers and an outage, every purchase is granted once and none is rejected")
    func faultsAndOutage() async throws {
        // Apple is down (503, then refusing connections) from 1.5 s to 4 s after the fake starts.
        let outages = [FakeOutage(start: .milliseconds(1_500), end: .milliseconds(3_000), kind: .serviceUnavailable),
                       FakeOutage(start: .milliseconds(3_000), end: .milliseconds(4_000), kind: .refused)]
        try await withPipeline(outages: outages) { pipeline in
            let purchases = try (0..<60).map { index in
                try pipeline.buy(index % 3 == 0 ? "com.example.pro\(index)" : "com.example.coins",
                                 type: index % 3 == 0 ? .nonConsumable : .consumable, customer: "c\(index % 7)")
            }
            try pipeline.fake.serverAPI.inject(FakeFault(endpoint: "get_transaction_info", httpStatus: 429, errorCode: 4_290_000,
                                                          retryAfterMilliseconds: 300, count: 10))
            try pipeline.fake.serverAPI.inject(FakeFault(endpoint: "get_transaction_info", httpStatus: 500, errorCode: 5_000_000, count: 10))
            try pipeline.fake.serverAPI.inject(FakeFault(endpoint: "get_transaction_info", httpStatus: 404, errorCode: 4_040_002, count: 5))
            let runner = try pipeline.startRunner()
            var ids: [Int] = []
            for (index, purchase) in purchases.enumerated() {
                if index == 30 { try await Task.sleep(for: .milliseconds(1_600)) }   // half of them during the outage
                let answer = try await pipeline.post("/v1/transactions", ["transaction_id": purchase.transactionId, "user_id": "u\(index)"],
                                                     trusted: true)
                ids.append(try #require(answer.id))
            }
            for id in ids {
                let status = try await pipeline.final(id, timeout: .seconds(60))
                #expect(status["verdict"] as? String == "delivered", "\(status)")
            }
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 60)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE state IN ('rejected', 'failed')") == 0)
            let retried = try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE attempts > 1")
            #expect(retried >= 10, "the faults were met and retried (\(retried) jobs retried)")
            try await runner.stop()
        }
    }

    @Test("--receipt-verifier server-api: a receipt verified here to hold the transaction is looked up, verifyReceipt never asked; garbage costs no call")
    func receiptsVerifiedLocallyThenThroughServerAPI() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(receiptsThroughServerAPI: true)
            func serverAPICalls() -> Int {
                pipeline.fake.stats.snapshot().outcomes.filter { $0.key.hasPrefix("api.") }.values.reduce(0, +)
            }
            let garbage = try await pipeline.post("/v1/receipts", [
                "receipt_data": Data("not a receipt".utf8).base64EncodedString(), "transaction_id": "2000000000000999", "user_id": "u1",
            ])
            let refused = try await pipeline.final(try #require(garbage.id))
            #expect(refused["verdict"] as? String == "not_paid", "\(refused)")
            #expect(serverAPICalls() == 0, "a receipt refused locally is never looked up")

            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let receipt = try pipeline.fake.serverAPI.mintReceipt(FakeReceipt(bundleID: StoreKitPipeline.bundleId, inApp: [
                FakeTransaction(transactionID: purchase.transactionId, originalTransactionID: purchase.originalTransactionId,
                                productID: purchase.productId),
            ]))
            let good = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": purchase.transactionId, "user_id": "u1"])
            let delivered = try await pipeline.final(try #require(good.id))
            #expect(delivered["verdict"] as? String == "delivered", "\(delivered)")
            #expect(delivered["kind"] as? String == "receipt")
            #expect(pipeline.fake.stats.snapshot().validAnswersByTransactionID.isEmpty, "verifyReceipt was not asked")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE receipt_data IS NOT NULL") == 2,
                    "the receipts are kept")

            // Someone else's transaction id, claimed with a genuine receipt that does not hold it.
            let other = try pipeline.buy("com.example.coins", type: .consumable, customer: "customer-2")
            let claimed = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": other.transactionId, "user_id": "u2"])
            let resubmit = try await pipeline.final(try #require(claimed.id))
            #expect(resubmit["verdict"] as? String == "resubmit", "\(resubmit)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1", [other.transactionId]) == 0)
            try await runner.stop()
        }
    }

    @Test("--confirm-signed-transactions: a JWS refunded since the app got it is not paid")
    func confirmation() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(confirmSignedTransactions: true)
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let jws = pipeline.signed(purchase)
            _ = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId)
            let status = try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: "u1").id))
            #expect(status["verdict"] as? String == "not_paid", "\(status)")
            let kept = try pipeline.buy("com.example.pro2", type: .nonConsumable)
            let granted = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(kept), user: "u1").id))
            #expect(granted["verdict"] as? String == "delivered", "\(granted)")
            try await runner.stop()
        }
    }
}
