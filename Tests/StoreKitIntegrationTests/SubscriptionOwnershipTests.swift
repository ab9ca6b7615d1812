import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// A subscription belongs to one account for its whole life (DESIGN: Ownership, issue 42). A
/// receipt carries every period of a subscription and a paying attacker can renew and submit each
/// period under a new account: none of it may deliver, entitle or route a renewal to anyone but
/// the original transaction's owner. Only an Apple-signed token naming another account's pending
/// order (an upgrade bought from that account) or support's transfer moves it.
@Suite("Ownership over a subscription's whole life", .serialized)
struct SubscriptionOwnershipTests {
    static let basic = "com.example.basic"
    static let premium = "com.example.premium"

    static func verdict(_ status: [String: Any]) -> String? { status["verdict"] as? String }

    /// The products the user is entitled to now, by id.
    static func entitled(_ pipeline: StoreKitPipeline, _ user: String) async throws -> [String] {
        let answer = try await pipeline.get("/v1/users/\(user)/entitlements")
        #expect(answer.status == 200, "\(answer.json)")
        return (answer.json["entitlements"] as? [[String: Any]] ?? []).compactMap { $0["product_id"] as? String }.sorted()
    }

    static func grants(_ pipeline: StoreKitPipeline, of user: String) async throws -> Int {
        try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = $1", [user])
    }

    /// The catalog: one group, premium above basic.
    static func catalog(_ pipeline: StoreKitPipeline) async throws {
        try await pipeline.pool.query("""
            INSERT INTO receiptq.products (product_id, type, subscription_group, group_level) VALUES
                ('\(premium)', 'auto_renewable', 'g1', 1), ('\(basic)', 'auto_renewable', 'g1', 2)
            """)
    }

    @Test("an older period of someone else's subscription reads owned_by_another_user, entitles nobody, and draws no renewal or restore")
    func olderPeriodReplay() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            try await Self.catalog(pipeline)
            let receipts = try pipeline.startReceiptWorker()
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            // A first period that has ended, and the live one.
            let first = try pipeline.buy(Self.basic, type: .autoRenewable, customer: "victim-apple-id", expiresInSeconds: 1)
            try await Task.sleep(for: .milliseconds(1500))
            let live = try pipeline.fake.serverAPI.renew(originalTransactionId: first.originalTransactionId, expiresInSeconds: 3600)
            #expect(await NotificationTests.notificationsApplied(pipeline, 1), "DID_RENEW, before anyone owns it (buy sends none)")
            let receipt = SubmissionFactsTests.receipt([first, live], created: Date())

            let owner = try await SubmissionFactsTests.submit(pipeline, receipt, live, user: "alice")
            #expect(Self.verdict(owner) == "delivered", "\(owner)")
            let replay = try await SubmissionFactsTests.submit(pipeline, receipt, first, user: "mallory")
            #expect(Self.verdict(replay) == "owned_by_another_user", "\(replay)")
            #expect(replay["purchase"] == nil, "another account's purchase is not shown")
            #expect(try await Self.entitled(pipeline, "mallory") == [])
            #expect(try await Self.entitled(pipeline, "alice") == [Self.basic])
            #expect(try await Self.grants(pipeline, of: "mallory") == 0)

            // The next renewal goes to the owner, and only the owner may restore.
            let next = try pipeline.fake.serverAPI.renew(originalTransactionId: first.originalTransactionId, expiresInSeconds: 3600)
            #expect(await NotificationTests.notificationsApplied(pipeline, 2))
            #expect(await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND user_id = 'alice'",
                                           [next.transactionId])) == 1
            }, "the renewal was granted to its owner")
            let restore = try await pipeline.post("/v1/users/mallory/history-syncs", ["original_transaction_id": first.originalTransactionId])
            #expect(restore.status == 403, "\(restore.json)")
            #expect(try await pipeline.post("/v1/users/alice/history-syncs", ["original_transaction_id": first.originalTransactionId]).status == 202)
            // Nothing about it reached the thief: no grant, no subscription event, no entitlement.
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.events WHERE user_id = 'mallory' AND type <> 'verdict.owned_by_another_user'
                """) == 0)
            #expect(try await Self.grants(pipeline, of: "mallory") == 0)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.owners WHERE user_id = 'alice' AND source = 'proof'") == 1)
            try await notifications.stop()
            try await runner.stop()
            try await receipts.stop()
        }
    }

    @Test("one subscription, three accounts: each renewal submitted under a new account, signed or in a receipt, entitles only the first")
    func oneSubscriptionManyAccounts() async throws {
        try await withPipeline { pipeline in
            try await Self.catalog(pipeline)
            let runner = try pipeline.startRunner(serverAPI: false)
            let receipts = try pipeline.startReceiptWorker()
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, customer: "attacker-apple-id", expiresInSeconds: 3600)
            let second = try pipeline.fake.serverAPI.renew(originalTransactionId: bought.originalTransactionId, expiresInSeconds: 3600)
            let third = try pipeline.fake.serverAPI.renew(originalTransactionId: bought.originalTransactionId, expiresInSeconds: 3600)
            let first = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "acct1").id))
            #expect(Self.verdict(first) == "delivered", "\(first)")
            let signed = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(second), user: "acct2").id))
            #expect(Self.verdict(signed) == "owned_by_another_user", "\(signed)")
            let viaReceipt = try await SubmissionFactsTests.submit(
                pipeline, SubmissionFactsTests.receipt([bought, second, third], created: Date()), third, user: "acct3")
            #expect(Self.verdict(viaReceipt) == "owned_by_another_user", "\(viaReceipt)")
            for account in ["acct2", "acct3"] {
                #expect(try await Self.entitled(pipeline, account) == [], "\(account) holds none of it")
                #expect(try await Self.grants(pipeline, of: account) == 0)
            }
            #expect(try await Self.entitled(pipeline, "acct1") == [Self.basic])
            // The owner's own later periods are theirs.
            let own = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(third), user: "acct1").id))
            #expect(Self.verdict(own) == "delivered", "\(own)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.ownership_refusals WHERE owner IS NULL OR owner = 'acct1'") == 2)
            try await receipts.stop()
            try await runner.stop()
        }
    }

    @Test("an upgrade bought from another account moves the subscription to it: its grants, its access and its events follow")
    func upgradeFromAnotherAccountMovesIt() async throws {
        try await withPipeline { pipeline in
            try await Self.catalog(pipeline)
            let runner = try pipeline.startRunner(serverAPI: false)
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, customer: "family-ipad", expiresInSeconds: 3600)
            let aliceJob = try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "alice").id)
            #expect(Self.verdict(try await pipeline.final(aliceJob)) == "delivered")
            // Bob, signed in on the same device, buys the upgrade under his own order's token.
            let token = UUID()
            #expect(try await pipeline.post("/v1/orders", ["order_id": "o-bob", "user_id": "bob", "product_id": Self.premium,
                                                           "app_account_token": token.uuidString]).status == 201)
            let upgrade = try pipeline.fake.serverAPI.changeSubscription(FakeSubscriptionChange(
                originalTransactionId: bought.originalTransactionId, action: .upgrade, productId: Self.premium,
                appAccountToken: token.uuidString)).purchase
            // Alice cannot take it with the upgrade's bytes: the token names Bob's order.
            let stolen = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(upgrade), user: "alice").id))
            #expect(Self.verdict(stolen) == "owned_by_another_user", "\(stolen)")
            let bobs = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(upgrade), user: "bob").id))
            #expect(Self.verdict(bobs) == "delivered", "\(bobs)")
            #expect((bobs["purchase"] as? [String: Any])?["order_id"] as? String == "o-bob")
            #expect(try await Self.grants(pipeline, of: "alice") == 0, "every grant moved")
            #expect(try await Self.grants(pipeline, of: "bob") == 2)
            #expect(try await Self.entitled(pipeline, "alice") == [])
            #expect(try await Self.entitled(pipeline, "bob") == [Self.premium])
            #expect(Self.verdict(try await pipeline.get("/v1/receipts/\(aliceJob)").json) == "owned_by_another_user")
            let moves = try await pipeline.pool.query("""
                SELECT user_id, body->>'direction' AS direction FROM receiptq.events WHERE type = 'grant.transferred' ORDER BY sequence
                """).map { "\(try $0.decode("user_id", as: String.self)):\(try $0.decode("direction", as: String.self))" }
            #expect(moves == ["alice:out", "bob:in"])
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.owners WHERE user_id = 'bob' AND source = 'token'") == 1)
            try await runner.stop()
        }
    }

    @Test("support's transfer holds against the token every renewal repeats: renewals go to the new owner, the old one reads owned_by_another_user")
    func transferHoldsAgainstTheRepeatedToken() async throws {
        try await withPipeline(notificationsToAPI: true) { pipeline in
            try await Self.catalog(pipeline)
            let runner = try pipeline.startRunner(serverAPI: false)
            let notifications = try pipeline.startNotificationRunner()
            let token = UUID()
            #expect(try await pipeline.post("/v1/orders", ["order_id": "o-alice", "user_id": "alice", "product_id": Self.basic,
                                                           "app_account_token": token.uuidString]).status == 201)
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, appAccountToken: token, expiresInSeconds: 3600)
            #expect(Self.verdict(try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: "alice").id)))
                    == "delivered")
            try await pipeline.pool.withConnection { connection in
                _ = try SupportLedger.transfer(try SupportAction(actor: "ops", why: "account merge"), originalTransactionID: bought.originalTransactionId,
                                               toUser: "alice-new", on: connection)
            }
            let renewal = try pipeline.fake.serverAPI.renew(originalTransactionId: bought.originalTransactionId, expiresInSeconds: 3600)
            #expect(renewal.appAccountToken == token.uuidString.lowercased(), "a renewal repeats the purchase's token")
            #expect(await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND user_id = 'alice-new'",
                                           [renewal.transactionId])) == 1
            }, "the renewal went to the new owner")
            let old = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(renewal), user: "alice").id))
            #expect(Self.verdict(old) == "owned_by_another_user", "\(old)")
            #expect(try await Self.entitled(pipeline, "alice") == [])
            #expect(try await Self.entitled(pipeline, "alice-new") == [Self.basic])
            try await notifications.stop()
            try await runner.stop()
        }
    }

    @Test("an id in the path round-trips byte for byte: spaces, @, %, / and non-ASCII name that customer, never an empty one")
    func pathIdsAreDecodedOnce() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let user = "ann smith@example.com/é%2F"
            let bought = try pipeline.buy("com.example.pro", type: .nonConsumable)
            #expect(Self.verdict(try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(bought), user: user).id)))
                    == "delivered")
            let encoded = user.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz.-_~"))!
            #expect(encoded.contains("%20") && encoded.contains("%40") && encoded.contains("%2F") && encoded.contains("%25"))
            let answer = try await pipeline.get("/v1/users/\(encoded)/entitlements")
            #expect(answer.status == 200 && answer.json["user_id"] as? String == user, "\(answer.json)")
            #expect((answer.json["entitlements"] as? [Any])?.count == 1)
            #expect((try await pipeline.get("/v1/users/\(encoded)/grants").json["grants"] as? [Any])?.count == 1)
            for bad in ["%zz", "%FF", String(repeating: "a", count: 257), "%20%"] {
                let refused = try await pipeline.get("/v1/users/\(bad)/entitlements")
                #expect(refused.status == 400 && refused.contentType == "application/problem+json", "\(bad): \(refused.status) \(refused.json)")
                #expect((refused.json["detail"] as? String)?.contains("user_id") == true, "\(refused.json)")
            }
            try await runner.stop()
        }
    }

    @Test("a family member's subscription period is one purchase whether it comes signed or in a receipt")
    func familyPeriodSignedThenInAReceipt() async throws {
        try await withPipeline { pipeline in
            try await Self.catalog(pipeline)
            let runner = try pipeline.startRunner(serverAPI: false)
            let receipts = try pipeline.startReceiptWorker()
            let bought = try pipeline.buy(Self.basic, type: .autoRenewable, customer: "parent", expiresInSeconds: 3600)
            let shared = try pipeline.fake.serverAPI.familyShare(transactionId: bought.transactionId, with: "child")
            let signed = try await pipeline.final(try #require(try await pipeline.submit(signed: pipeline.signed(shared), user: "child-account").id))
            #expect(Self.verdict(signed) == "delivered", "\(signed)")
            let receipt = SubmissionFactsTests.receipt([shared], created: Date())
            let again = try await SubmissionFactsTests.submit(pipeline, receipt, shared, user: "child-account")
            #expect(Self.verdict(again) == "already_delivered", "\(again)")
            let other = try await SubmissionFactsTests.submit(pipeline, receipt, shared, user: "someone")
            #expect(Self.verdict(other) == "owned_by_another_user", "\(other)")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants") == 1)
            try await receipts.stop()
            try await runner.stop()
        }
    }
}
