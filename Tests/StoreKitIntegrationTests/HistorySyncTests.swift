import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// History sync against the fake App Store over HTTP and a real database: a restore, asked by a
/// purchase's owner only, imports every period the ledger missed into the one ledger (once each)
/// and the subscription model, and never grants the asker what nobody placed; a re-run resumes from Apple's revision and receives only what changed since; the first
/// grant of a subscription queues its sync by itself; a long history is walked page by page.
@Suite("History sync: Transaction History v2 into the ledger and the subscription model", .serialized)
struct HistorySyncTests {
    static func sync(_ pipeline: StoreKitPipeline, _ original: String) async throws -> [String: Any] {
        let rows = try await pipeline.pool.query("""
            SELECT state, pages, transactions, reason, user_id, revision, last_error FROM receiptq.history_syncs
            WHERE original_transaction_id = $1
            """, [original])
        guard let row = rows.first else { return [:] }
        return ["state": try row.decode("state", as: String.self), "pages": try row.decode("pages", as: Int.self),
                "transactions": try row.decode("transactions", as: Int.self), "reason": try row.decode("reason", as: String.self),
                "user_id": try row.decodeIfPresent("user_id", as: String.self) as Any,
                "revision": try row.decodeIfPresent("revision", as: String.self) as Any,
                "last_error": try row.decodeIfPresent("last_error", as: String.self) as Any]
    }

    static func grants(_ pipeline: StoreKitPipeline, user: String) async throws -> Int {
        try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE user_id = $1", [user])
    }

    /// Waits until the sync is `state` with `transactions` imported in all, and the jobs it queued are final.
    static func settled(_ pipeline: StoreKitPipeline, _ original: String, state: String = "synced", transactions: Int) async -> Bool {
        await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
            let sync = (try? await Self.sync(pipeline, original)) ?? [:]
            let open = (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE state IN ('queued', 'verifying')")) ?? 1
            return sync["state"] as? String == state && sync["transactions"] as? Int == transactions && open == 0
        }
    }

    @Test("a restore by the owner grants every period the ledger missed, once; a re-run asks only for what changed since")
    func restoreThenResume() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            // Bought and renewed three times while ReceiptQueue heard nothing; a consumable beside it.
            let first = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "c1", expiresInSeconds: 3600)
            let original = first.originalTransactionId
            var periods = [first]
            for _ in 0..<3 { periods.append(try fake.renew(originalTransactionId: original, expiresInSeconds: 3600)) }
            let coins = try pipeline.buy("com.example.coins", customer: "c1")
            _ = try pipeline.buy("com.example.coins", customer: "someone-else")
            // The app proves one purchase (StoreKit 2 hands it the signed transaction); then it asks for a restore.
            let submitted = try await pipeline.submit(signed: pipeline.signed(first), user: "u1")
            #expect(try await pipeline.final(try #require(submitted.id))["verdict"] as? String == "delivered")

            let answer = try await pipeline.post("/v1/users/u1/history-syncs", ["original_transaction_id": original])
            #expect(answer.status == 202, "\(answer.json)")
            #expect(answer.json["environment"] as? String == "Production")
            #expect(answer.json["state"] as? String == "queued")
            #expect(try await Self.sync(pipeline, original)["reason"] as? String == "request")
            let history = try pipeline.startHistorySyncRunner()
            #expect(await Self.settled(pipeline, original, transactions: 5))
            // Four periods, to their owner; the consumable in the same Apple account stays for the app's own
            // submission with proof: two app accounts may share one Apple account.
            #expect(try await Self.grants(pipeline, user: "u1") == 4)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE product_id = 'com.example.coins'") == 0)
            let subscriptions = try await pipeline.get("/v1/users/u1/subscriptions").json["subscriptions"] as? [[String: Any]] ?? []
            #expect(subscriptions.count == 1)
            #expect(subscriptions.first?["transaction_id"] as? String == periods.last?.transactionId)
            #expect(subscriptions.first?["state"] as? String == "active")
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.subscriptions WHERE last_source = 'history'") == 1)
            let coinsJob = try await pipeline.submit(signed: pipeline.signed(coins), user: "u1")
            #expect(try await pipeline.final(try #require(coinsJob.id))["verdict"] as? String == "delivered")
            let jobs = try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs")

            // Again, nothing changed at Apple: one empty page from the revision, nothing queued, nothing granted.
            let again = try await pipeline.post("/v1/users/u1/history-syncs", ["original_transaction_id": original])
            #expect(again.status == 202)
            #expect(await Self.settled(pipeline, original, transactions: 5))
            #expect(try await Self.sync(pipeline, original)["pages"] as? Int == 2)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs") == jobs)
            #expect(try await Self.grants(pipeline, user: "u1") == 5)

            // A new period and a refund of an old one: the resumed walk receives exactly those two.
            let fifth = try fake.renew(originalTransactionId: original, expiresInSeconds: 3600)
            _ = try fake.refund(transactionId: periods[1].transactionId)
            _ = try await pipeline.post("/v1/users/u1/history-syncs", ["original_transaction_id": original])
            #expect(await Self.settled(pipeline, original, transactions: 7))
            #expect(try await Self.grants(pipeline, user: "u1") == 6)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE revoked_at IS NOT NULL AND transaction_id = $1",
                                             [periods[1].transactionId]) == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.revoked' AND user_id = 'u1'") == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.subscriptions WHERE transaction_id = $1",
                                             [fifth.transactionId]) == 1)
            try await history.stop()
            try await runner.stop()
        }
    }

    @Test("a restore asked by anyone but an owner is refused, before and after the owner's purchase is in the ledger, and grants nothing")
    func restoreIsForOwnersOnly() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let history = try pipeline.startHistorySyncRunner()
            let fake = pipeline.fake.serverAPI
            let first = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "victim", expiresInSeconds: 3600)
            let original = first.originalTransactionId
            for _ in 0..<2 { _ = try fake.renew(originalTransactionId: original, expiresInSeconds: 3600) }
            _ = try pipeline.buy("com.example.coins", customer: "victim")

            // The attacker read the victim's original transaction id (a screenshot, a support chat): a bare id is a claim.
            let early = try await pipeline.post("/v1/users/mallory/history-syncs", ["original_transaction_id": original])
            #expect(early.status == 403, "\(early.json)")
            #expect(early.json["type"] as? String == "urn:receiptq:problem:purchase-not-owned")
            #expect(try await Self.sync(pipeline, original).isEmpty, "nothing queued for a claim")

            // The victim's app submits its purchase; its first grant syncs the history for the victim.
            let submitted = try await pipeline.submit(signed: pipeline.signed(first), user: "victim-account")
            #expect(try await pipeline.final(try #require(submitted.id))["verdict"] as? String == "delivered")
            #expect(await Self.settled(pipeline, original, transactions: 4))
            let late = try await pipeline.post("/v1/users/mallory/history-syncs", ["original_transaction_id": original])
            #expect(late.status == 403)
            // Naming the environment changes nothing; neither does an owner's purchase in the other environment.
            #expect(try await pipeline.post("/v1/users/mallory/history-syncs",
                                            ["original_transaction_id": original, "environment": "Production"]).status == 403)
            #expect(try await pipeline.post("/v1/users/victim-account/history-syncs",
                                            ["original_transaction_id": original, "environment": "Sandbox"]).status == 403)
            #expect(try await Self.grants(pipeline, user: "mallory") == 0)
            #expect(try await Self.grants(pipeline, user: "victim-account") == 3)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.jobs WHERE user_id = 'mallory'") == 0)
            #expect(try await Self.sync(pipeline, original)["reason"] as? String == "first_sighting")
            try await history.stop()
            try await runner.stop()
        }
    }

    @Test("the first grant of a subscription queues its sync; a long history is walked a page per claim and resumed from its revision")
    func firstSightingWalksPageByPage() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            let first = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "c2", expiresInSeconds: 3600)
            for _ in 0..<24 { _ = try fake.renew(originalTransactionId: first.originalTransactionId, expiresInSeconds: 3600) }
            // The app submits only its first purchase.
            let submitted = try await pipeline.submit(signed: pipeline.signed(first), user: "u2")
            let status = try await pipeline.final(try #require(submitted.id))
            #expect(status["verdict"] as? String == "delivered", "\(status)")
            let queued = try await Self.sync(pipeline, first.originalTransactionId)
            #expect(queued["reason"] as? String == "first_sighting")
            #expect(queued["state"] as? String == "queued")

            let history = try pipeline.startHistorySyncRunner(maxPagesPerClaim: 1)
            #expect(await Self.settled(pipeline, first.originalTransactionId, transactions: 25))
            #expect(try await Self.sync(pipeline, first.originalTransactionId)["pages"] as? Int == 2)
            // Yielding after a page is not an attempt: the two claims count as one.
            #expect(try await pipeline.count("SELECT attempts AS count FROM receiptq.history_syncs WHERE original_transaction_id = $1",
                                             [first.originalTransactionId]) == 1)
            #expect(try await Self.grants(pipeline, user: "u2") == 25)
            try await history.stop()
            try await runner.stop()
        }
    }

    @Test("a refund found in the history is kept like a notified one: later submissions are not paid, a walk again revokes nothing twice, a reversal reinstates it, and support's manual revocation stays")
    func refundsFromHistory() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let fake = pipeline.fake.serverAPI
            let subscription = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "c5", expiresInSeconds: 3600)
            let chargedBack = try pipeline.buy("com.example.coins", customer: "c5")
            let unsubmitted = try pipeline.buy("com.example.coins", customer: "c5")
            let staleJWS = pipeline.signed(unsubmitted)   // what the device holds, signed before Apple's refund
            for purchase in [subscription, chargedBack] {
                let job = try await pipeline.submit(signed: pipeline.signed(purchase), user: "u5")
                #expect(try await pipeline.final(try #require(job.id))["verdict"] as? String == "delivered")
            }
            // Ops revoke one by hand (a chargeback they handle themselves); Apple refunds two, and notifies nobody.
            let key: String = try await pipeline.pool.query("SELECT purchase_key FROM receiptq.grants WHERE transaction_id = $1",
                                                             [chargedBack.transactionId])[0].decode("purchase_key")
            _ = try await pipeline.pool.query("SELECT receiptq.support_revoke('ops', 'chargeback', $1)", [key])
            _ = try fake.refund(transactionId: subscription.transactionId)
            _ = try fake.refund(transactionId: unsubmitted.transactionId)

            let history = try pipeline.startHistorySyncRunner()
            let original = subscription.originalTransactionId
            #expect(await Self.settled(pipeline, original, transactions: 3))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.revocations WHERE source = 'history' AND transaction_id = ANY($1)",
                                             [[subscription.transactionId, unsubmitted.transactionId]]) == 2)
            let revokedEvents = "SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.revoked' AND user_id = 'u5'"
            #expect(try await pipeline.count(revokedEvents) == 2, "support's and the history's")
            // The device's JWS from before the refund: a refunded purchase is not paid.
            let late = try await pipeline.submit(signed: staleJWS, user: "u5")
            #expect(try await pipeline.final(try #require(late.id))["verdict"] as? String == "not_paid")

            // A walk again from the revision: nothing new, nothing revoked twice.
            #expect(try await pipeline.post("/v1/users/u5/history-syncs", ["original_transaction_id": original]).status == 202)
            #expect(await Self.settled(pipeline, original, transactions: 3))
            #expect(try await pipeline.count(revokedEvents) == 2)

            // Apple reverses its refund and notifies nobody: the next walk reinstates the period, never the chargeback.
            _ = try fake.reverseRefund(transactionId: subscription.transactionId)
            #expect(try await pipeline.post("/v1/users/u5/history-syncs", ["original_transaction_id": original]).status == 202)
            #expect(await Self.settled(pipeline, original, transactions: 4))
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND revoked_at IS NULL",
                                             [subscription.transactionId]) == 1)
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.events WHERE type = 'grant.reinstated' AND user_id = 'u5'") == 1)
            #expect(try await pipeline.count("""
                SELECT count(*) AS count FROM receiptq.grants WHERE transaction_id = $1 AND revoked_at IS NOT NULL AND revocation_reason LIKE 'manual:%'
                """, [chargedBack.transactionId]) == 1)
            try await history.stop()
            try await runner.stop()
        }
    }

    @Test("one walk per customer: the syncs of the customer's other subscriptions, queued and never walked, end with it")
    func oneWalkPerCustomer() async throws {
        try await withPipeline { pipeline in
            let runner = try pipeline.startRunner(serverAPI: false)
            let basic = try pipeline.buy("com.example.basic", type: .autoRenewable, customer: "c6", expiresInSeconds: 3600)
            let pro = try pipeline.buy("com.example.pro", type: .autoRenewable, customer: "c6", expiresInSeconds: 3600)
            for purchase in [basic, pro] {
                let job = try await pipeline.submit(signed: pipeline.signed(purchase), user: "u6")
                #expect(try await pipeline.final(try #require(job.id))["verdict"] as? String == "delivered")
            }
            #expect(try await pipeline.count("SELECT count(*) AS count FROM receiptq.history_syncs WHERE state = 'queued'") == 2)
            let history = try pipeline.startHistorySyncRunner(concurrency: 1)
            #expect(await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                (try? await pipeline.count("SELECT count(*) AS count FROM receiptq.history_syncs WHERE state = 'synced'")) == 2
            })
            // One of them walked Apple's history (one page), the other was covered by it.
            #expect(try await pipeline.count("SELECT sum(pages)::int AS count FROM receiptq.history_syncs") == 1)
            let covered = try await pipeline.pool.query("""
                SELECT original_transaction_id, covered_by, revision IS NOT NULL AS resumable FROM receiptq.history_syncs WHERE covered_by IS NOT NULL
                """)
            #expect(covered.count == 1)
            #expect(try covered.first?.decode("resumable", as: Bool.self) == true)
            #expect(Set(try covered.flatMap { [try $0.decode("original_transaction_id", as: String.self), try $0.decode("covered_by", as: String.self)] })
                    == [basic.originalTransactionId, pro.originalTransactionId])
            try await history.stop()
            try await runner.stop()
        }
    }

    @Test("bad requests are refused with the field named; a transaction Apple does not know ends the sync failed, kept for ops")
    func refusalsAndUnknownTransactions() async throws {
        try await withPipeline { pipeline in
            let missing = try await pipeline.post("/v1/users/u3/history-syncs", [:])
            #expect(missing.status == 400)
            #expect(String(decoding: missing.body, as: UTF8.self).contains("original_transaction_id"))
            let environment = try await pipeline.post("/v1/users/u3/history-syncs", ["original_transaction_id": "1", "environment": "Prod"])
            #expect(environment.status == 400)
            #expect(String(decoding: environment.body, as: UTF8.self).contains("environment"))
            let long = try await pipeline.post("/v1/users/u3/history-syncs", ["original_transaction_id": String(repeating: "9", count: 65)])
            #expect(long.status == 400)

            // Nobody owns it, so only an operator's backfill can ask for it.
            #expect(try await pipeline.post("/v1/users/u3/history-syncs", ["original_transaction_id": "999999"]).status == 403)
            let history = try pipeline.startHistorySyncRunner()
            _ = try await pipeline.pool.withConnection {
                try QueueHistorySync.run(originalTransactionID: "999999", environment: "Production", userID: nil, reason: .backfill, on: $0)
            }
            #expect(await Self.settled(pipeline, "999999", state: "failed", transactions: 0))
            #expect((try await Self.sync(pipeline, "999999")["last_error"] as? String)?.contains("no such transaction") == true)
            try await history.stop()
        }
    }
}
