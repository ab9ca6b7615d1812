import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import Support
import Testing

/// The support operations that ask Apple, against the fake App Store over HTTP: Look Up Order
/// ID, refund history, renewal-date extensions (one subscriber; every active subscriber with
/// status polling). Each write's audit row says what Apple answered.
@Suite("Support: Apple's order, refund and extension endpoints")
struct SupportAppleTests {
    static func object(_ json: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }

    @Test func anOrderIdFromTheReceiptEmailFindsTheTransactionsAndOurGrants() async throws {
        try await withSupportFixture { fixture in
            let bought = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.coins", customer: "c1", notify: false,
                                                                            orderId: "MK5TTTVWJH"))
            try await fixture.grant(bought.transactionId, user: "u-email")
            let view = Self.object(try await fixture.operations.lookUpOrder("MK5TTTVWJH"))
            let transactions = view["transactions"] as? [[String: Any]] ?? []
            #expect(transactions.map { $0["transactionId"] as? String } == [bought.transactionId])
            #expect((view["grants"] as? [[String: Any]])?.first?["user_id"] as? String == "u-email")
            do {
                _ = try await fixture.operations.lookUpOrder("NOSUCHORDER")
                Issue.record("an unknown order was found")
            } catch let error as SupportError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func refundHistoryShowsApplesRefundsBesideTheLedger() async throws {
        try await withSupportFixture { fixture in
            let kept = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.a", customer: "c1", notify: false))
            let refunded = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.b", customer: "c1", notify: false))
            _ = try fixture.fake.serverAPI.refund(transactionId: refunded.transactionId)
            try await fixture.grant(refunded.transactionId, user: "u1")
            let view = Self.object(try await fixture.operations.refundHistory(originalTransactionID: kept.originalTransactionId))
            let refunds = view["refunds"] as? [[String: Any]] ?? []
            #expect(refunds.map { $0["transactionId"] as? String } == [refunded.transactionId])
            #expect((view["grants"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func extendingOneSubscriberAsksAppleAndAuditsItsAnswer() async throws {
        try await withSupportFixture { fixture in
            let sub = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.monthly", type: "Auto-Renewable Subscription",
                                                                         customer: "c1", notify: false))
            let answer = Self.object(try await fixture.operations.extend(originalTransactionID: sub.originalTransactionId, days: 5,
                                                                         reason: .serviceIssueOrOutage, SupportFixture.action("outage 2026-11-20")))
            #expect(answer["success"] as? Bool == true)
            let effective = try #require(answer["effective_date"] as? Int64)
            #expect(effective == (sub.expiresDate ?? 0) + 5 * 86_400_000)
            let audit = try await fixture.audit(try #require((answer["audit_id"] as? Int).map(Int64.init)))
            #expect(audit.action == "subscription.extend" && audit.subject == "original_transaction:" + sub.originalTransactionId)
            #expect(audit.why == "outage 2026-11-20" && audit.after?.contains("\"success\": true") == true)
            // Apple's own refusal reads as bad input, not a crash, and is not audited.
            await #expect(throws: SupportError.self) {
                _ = try await fixture.operations.extend(originalTransactionID: sub.originalTransactionId, days: 91, reason: .other, SupportFixture.action())
            }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit") == 1)
        }
    }

    @Test func aMassExtensionIsAuditedAndItsStatusPolledUntilComplete() async throws {
        try await withSupportFixture { fixture in
            for customer in ["c1", "c2"] {
                _ = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.monthly", type: "Auto-Renewable Subscription",
                                                                       customer: customer, notify: false))
            }
            let started = Self.object(try await fixture.operations.massExtend(productID: "com.example.monthly", days: 3, reason: .serviceIssueOrOutage,
                                                                              storefronts: nil, environment: .production,
                                                                              SupportFixture.action("outage")))
            let identifier = try #require(started["request_identifier"] as? String)
            let audit = try await fixture.audit(try #require((started["audit_id"] as? Int).map(Int64.init)))
            #expect(audit.action == "subscription.mass_extend" && audit.subject == "product:com.example.monthly")
            var status: [String: Any] = [:]
            for _ in 0..<10 {
                status = Self.object(try await fixture.operations.massExtensionStatus(productID: "com.example.monthly", requestIdentifier: identifier,
                                                                                       environment: .production))
                if status["complete"] as? Bool == true { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(status["complete"] as? Bool == true)
            #expect(status["succeeded_count"] as? Int == 2)
        }
    }
}
