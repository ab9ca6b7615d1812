import FakeAppStore
import Foundation
import Testing

/// Every receipt shape Apple ever issued reaches Apple: the founding example, an iOS 6
/// `transactionReceipt` (base64 of an old-style property list), goes through the API's default
/// local check and is verified by verifyReceipt, whichever way the workers verify receipts.
@Suite("iOS 6 transaction receipts, end to end with the default configuration", .serialized)
struct LegacyReceiptTests {
    static func transactionReceipt(_ pipeline: StoreKitPipeline, _ id: String, environment: FakeReceipt.Environment = .sandbox) throws -> String {
        try pipeline.fake.serverAPI.mintTransactionReceipt(FakeReceipt(
            bundleID: StoreKitPipeline.bundleId, environment: environment,
            inApp: [FakeTransaction(transactionID: id, productID: "com.example.download")]))
    }

    @Test("--receipt-check local on the API and a verify-receipt worker: stored, verified by Apple, delivered once")
    func verifyReceiptWorker() async throws {
        try await withPipeline(receiptCheck: true) { pipeline in
            let receipts = try pipeline.startReceiptWorker(localReceipts: true)
            let receipt = try Self.transactionReceipt(pipeline, "1000000046178817")
            #expect(receipt.hasPrefix("ewoJInNpZ25hdHVyZSIgPSAi"))
            let answer = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": "1000000046178817",
                                                                  "user_id": "u1"])
            #expect(answer.status == 202, "\(answer.json)")
            let status = try await pipeline.final(try #require(answer.id))
            #expect(status["verdict"] as? String == "delivered", "\(status)")
            #expect(status["environment"] as? String == "Sandbox")
            #expect((status["purchase"] as? [String: Any])?["product_id"] as? String == "com.example.download")
            #expect(pipeline.fake.stats.snapshot().validAnswersByTransactionID["1000000046178817"] != nil, "Apple verified it")
            // A forged one (signed by another key) is Apple's "not authentic".
            let forged = try FakeReceipt(bundleID: StoreKitPipeline.bundleId, inApp: [FakeTransaction(transactionID: "666", productID: "com.example.download")])
                .transactionReceipt(signer: try FakeServerAPI(configuration: .init(bundleId: StoreKitPipeline.bundleId)).transactionReceiptSigner())
            let refused = try await pipeline.final(try #require(try await pipeline.post("/v1/receipts", [
                "receipt_data": forged, "transaction_id": "666", "user_id": "u2"]).id))
            #expect(refused["verdict"] as? String == "not_paid", "\(refused)")
            try await receipts.stop()
        }
    }

    @Test("--receipt-verifier server-api: a receipt the local check cannot confirm goes to verifyReceipt and is delivered")
    func serverAPIWorker() async throws {
        try await withPipeline(receiptCheck: true) { pipeline in
            let runner = try pipeline.startRunner(receiptsThroughServerAPI: true)
            let receipt = try Self.transactionReceipt(pipeline, "1000000046178818", environment: .production)
            let answer = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": "1000000046178818",
                                                                  "user_id": "u1"])
            let status = try await pipeline.final(try #require(answer.id))
            #expect(status["verdict"] as? String == "delivered", "\(status)")
            #expect(pipeline.fake.stats.snapshot().outcomes.keys.allSatisfy { !$0.hasPrefix("api.get_transaction_info") },
                    "not looked up: the receipt proved nothing locally")
            try await runner.stop()
        }
    }
}
