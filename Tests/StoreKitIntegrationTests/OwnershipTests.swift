import FakeAppStore
import Foundation
import ReceiptQueue
import Testing

/// A paid purchase reaches the user who paid, and nobody else (DESIGN: Ownership). The app user
/// is the attacker here: they replay what they can get — receipts, signed transactions, transaction
/// ids — under accounts of their own, and read `delivered` from none of it.
@Suite("Ownership: a purchase is delivered to its owner, never to a replay", .serialized)
struct OwnershipTests {
    static func verdict(_ status: [String: Any]) -> String? { status["verdict"] as? String }

    @Test("a signed transaction replayed under other accounts reads owned_by_another_user; its owner's resubmissions are one job, whatever the signature bytes")
    func signedTransactionReplays() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let purchase = try pipeline.buy("com.example.coins", type: .consumable)
            let jws = pipeline.signed(purchase)
            let alice = try await pipeline.submit(signed: jws, user: "alice")
            #expect(alice.status == 202)
            let aliceID = try #require(alice.id)
            #expect(Self.verdict(try await pipeline.final(aliceID)) == "delivered")
            for mallory in ["mallory1", "mallory2", "mallory3"] {
                let replay = try await pipeline.submit(signed: jws, user: mallory)
                #expect(replay.status == 202, "another account's submission is a job of its own")
                let status = try await pipeline.final(try #require(replay.id))
                #expect(Self.verdict(status) == "owned_by_another_user", "\(mallory): \(status)")
                #expect(status["purchase"] == nil, "another account's purchase is not shown")
                #expect(status["state"] as? String == "owned_elsewhere")
            }
            let again = try await pipeline.submit(signed: jws, user: "alice")
            #expect(again.status == 200 && again.id == aliceID && Self.verdict(again.json) == "delivered")
            // The same transaction signed again (new bytes): what Apple signed deduplicates, not the signature.
            let resigned = pipeline.signed(purchase, at: Date().addingTimeInterval(5))
            #expect(resigned != jws)
            let third = try await pipeline.submit(signed: resigned, user: "alice")
            #expect(third.status == 200 && third.id == aliceID, "\(third.json)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'alice'") == 1)
            #expect(try await pipeline.count(
                "SELECT count(*) AS count FROM receiptq.events WHERE type = 'verdict.owned_by_another_user'") == 3)
            #expect(try await pipeline.count(
                "SELECT count(*) AS count FROM receiptq.events WHERE type = 'verdict.delivered' AND user_id = 'alice'") == 1)
            #expect(try await pipeline.count(
                "SELECT count(*) AS count FROM receiptq.ownership_refusals WHERE owner = 'alice'") == 3, "flagged for ops")
            try await runner.stop()
        }
    }

    @Test("a receipt replayed under another account reads owned_by_another_user; the owner's resubmission is the same job")
    func receiptReplays() async throws {
        try await withPipeline { pipeline in
            let receipts = try pipeline.startReceiptWorker()
            let purchase = try pipeline.buy("com.example.pro", type: .nonConsumable)
            let receipt = OneLedgerTests.receipt([(purchase.transactionId, purchase.originalTransactionId, purchase.productId)])
            let body: (String) -> [String: Any] = { ["receipt_data": receipt, "transaction_id": purchase.transactionId, "user_id": $0] }
            let alice = try await pipeline.post("/v1/receipts", body("alice"))
            #expect(Self.verdict(try await pipeline.final(try #require(alice.id))) == "delivered")
            let bob = try await pipeline.post("/v1/receipts", body("bob"))
            #expect(bob.status == 202)
            let bobStatus = try await pipeline.final(try #require(bob.id))
            #expect(Self.verdict(bobStatus) == "owned_by_another_user", "\(bobStatus)")
            let again = try await pipeline.post("/v1/receipts", body("alice"))
            #expect(again.status == 200 && again.id == alice.id && Self.verdict(again.json) == "delivered")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = 'alice'") == 1)
            try await receipts.stop()
        }
    }

    @Test("the order an Apple-signed appAccountToken names decides the owner, whoever submits first; the owner still reads delivered")
    func tokenDecidesTheOwner() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let token = UUID()
            let order = try await pipeline.post("/v1/orders", ["order_id": "o-alice", "user_id": "alice", "product_id": "com.example.gems",
                                                               "app_account_token": token.uuidString])
            #expect(order.status == 201)
            let purchase = try pipeline.buy("com.example.gems", type: .consumable, appAccountToken: token)
            let jws = pipeline.signed(purchase)
            let mallory = try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: "mallory").id))
            #expect(Self.verdict(mallory) == "owned_by_another_user", "\(mallory)")
            #expect((mallory["reason"] as? String)?.contains("appAccountToken") == true, "\(mallory)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 0, "nothing granted to a non-owner")
            let alice = try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: "alice").id))
            #expect(Self.verdict(alice) == "delivered", "\(alice)")
            #expect((alice["purchase"] as? [String: Any])?["order_id"] as? String == "o-alice")
            let later = try await pipeline.submit(signed: jws, user: "mallory")
            #expect(later.status == 200 && Self.verdict(later.json) == "owned_by_another_user")
            try await runner.stop()
        }
    }

    @Test("a bare transaction id is a claim: resubmit without proof, owned_by_another_user for another's token, delivered to the token's owner or from a trusted backend")
    func transactionIDClaims() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner()
            let plain = try pipeline.buy("com.example.coins", type: .consumable, customer: "alice-apple-id")
            let claim = try await pipeline.final(try #require(try await pipeline.post("/v1/transactions", [
                "transaction_id": plain.transactionId, "user_id": "mallory"]).id))
            #expect(Self.verdict(claim) == "resubmit", "\(claim)")
            #expect((claim["reason"] as? String)?.contains("does not prove who paid") == true, "\(claim)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 0)

            let token = UUID()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-alice", "user_id": "alice", "product_id": "com.example.coins",
                                                       "app_account_token": token.uuidString])
            let tokened = try pipeline.buy("com.example.coins", type: .consumable, customer: "alice-apple-id", appAccountToken: token)
            let stolen = try await pipeline.final(try #require(try await pipeline.post("/v1/transactions", [
                "transaction_id": tokened.transactionId, "user_id": "mallory"]).id))
            #expect(Self.verdict(stolen) == "owned_by_another_user", "\(stolen)")
            let own = try await pipeline.final(try #require(try await pipeline.post("/v1/transactions", [
                "transaction_id": tokened.transactionId, "user_id": "alice"]).id))
            #expect(Self.verdict(own) == "delivered", "\(own)")

            let vouched = try pipeline.buy("com.example.coins", type: .consumable, customer: "carol-apple-id")
            let trusted = try await pipeline.final(try #require(try await pipeline.post("/v1/transactions", [
                "transaction_id": vouched.transactionId, "user_id": "carol"], trusted: true).id))
            #expect(Self.verdict(trusted) == "delivered", "\(trusted)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 2)
            try await runner.stop()
        }
    }

    @Test("--receipt-verifier server-api: bytes that prove nothing plus a victim's transaction id are never looked up, never granted")
    func unprovenReceiptsAreNeverLookedUp() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(receiptsThroughServerAPI: true)
            let victim = try pipeline.buy("com.example.pro", type: .nonConsumable, customer: "victim")
            let lookups = { pipeline.fake.stats.snapshot().outcomes.filter { $0.key.hasPrefix("api.get_transaction_info") }.values.reduce(0, +) }
            // "MAAA": a DER SEQUENCE header and a stray byte — not a receipt, not provably anyone's.
            for receipt in ["MAAA", Data(repeating: 0x30, count: 40).base64EncodedString()] {
                let answer = try await pipeline.post("/v1/receipts", ["receipt_data": receipt, "transaction_id": victim.transactionId,
                                                                      "user_id": "attacker"])
                let id = try #require(answer.id)
                try await Task.sleep(for: .seconds(2))
                let status = try await pipeline.get("/v1/receipts/\(id)").json
                #expect(["not_paid", "pending"].contains(Self.verdict(status) ?? ""), "\(receipt): \(status)")
            }
            #expect(lookups() == 0, "the victim's transaction was never looked up on the word of bytes that proved nothing")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 0)
            try await runner.stop()
        }
    }

    @Test("one family member's shared transaction is granted once, to its first submitter; replays by other accounts read owned_by_another_user")
    func familySharing() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let bought = try pipeline.buy("com.example.pro", type: .nonConsumable, customer: "parent")
            let shared = try pipeline.fake.serverAPI.familyShare(transactionId: bought.transactionId, with: "child")
            #expect(Self.verdict(try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "parent-account").id))) == "delivered")
            let jws = pipeline.signed(shared)
            #expect(Self.verdict(try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: "child-account").id))) == "delivered")
            for mallory in ["m1", "m2"] {
                let status = try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: mallory).id))
                #expect(Self.verdict(status) == "owned_by_another_user", "\(status)")
            }
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 2)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE purchase_key = $1",
                                             ["family:purchase:" + shared.originalTransactionId]) == 1)
            try await runner.stop()
        }
    }

    @Test("a refund reads revoked at once for its owner, and a replay after it is never delivered")
    func refundThenReplay() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let purchase = try pipeline.buy("com.example.coins", type: .consumable)
            let jws = pipeline.signed(purchase)
            let aliceID = try #require(try await pipeline.submit(signed: jws, user: "alice").id)
            #expect(Self.verdict(try await pipeline.final(aliceID)) == "delivered")
            _ = try pipeline.fake.serverAPI.refund(transactionId: purchase.transactionId)
            #expect(await NotificationTests.notificationsApplied(pipeline, 1))
            let status = try await pipeline.get("/v1/receipts/\(aliceID)").json
            #expect(Self.verdict(status) == "revoked", "\(status)")
            let again = try await pipeline.submit(signed: jws, user: "alice")
            #expect(again.status == 200 && Self.verdict(again.json) == "revoked")
            let replay = try await pipeline.final(try #require(try await pipeline.submit(signed: jws, user: "mallory").id))
            #expect(["owned_by_another_user", "not_paid"].contains(Self.verdict(replay) ?? ""), "\(replay)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 1)
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("--require-app-account-token: a purchase no signed token ties to an order is held in failed; one that names its order is delivered")
    func requiredToken() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false, ownership: OwnershipPolicy(requireAppAccountToken: true))
            let plain = try pipeline.buy("com.example.coins", type: .consumable)
            let held = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(plain), user: "alice").id))
            #expect(held["state"] as? String == "failed" && Self.verdict(held) == "pending", "\(held)")
            #expect((held["reason"] as? String)?.contains("--require-app-account-token") == true)
            let token = UUID()
            _ = try await pipeline.post("/v1/orders", ["order_id": "o-1", "user_id": "alice", "product_id": "com.example.coins",
                                                       "app_account_token": token.uuidString])
            let tokened = try pipeline.buy("com.example.coins", type: .consumable, appAccountToken: token)
            let granted = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(tokened), user: "alice").id))
            #expect(Self.verdict(granted) == "delivered", "\(granted)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 1)
            try await runner.stop()
        }
    }
}
