import FakeAppStore
import Foundation
import Postgres
import ReceiptQueue
import Support
import Testing

/// The remaining writes, each with its audit row: re-driving quarantined notifications and failed
/// webhook deliveries, and a transfer that also sets the purchase's app account token at Apple.
@Suite("Support: notification and delivery re-drives, a transfer at Apple")
struct SupportRedriveAndTransferAtAppleTests {
    @Test func quarantinedNotificationsAreRedrivenAndAudited() async throws {
        try await withSupportFixture { fixture in
            let uuid = UUID()
            try await fixture.owner.query("""
                INSERT INTO receiptq.notifications (notification_uuid, notification_type, environment, signed_date, signed_payload, state, last_error)
                VALUES ($1::uuid, 'REFUND', 'Production', now(), 'x.y.z', 'quarantined', 'no root configured')
                """, [uuid.uuidString])
            let moved = try await fixture.operations.redriveNotifications(uuids: [], SupportFixture.action("root configured"))
            #expect(moved.ids == [uuid])
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.notifications WHERE state = 'queued'") == 1)
            let audit = try await fixture.audit(try #require(moved.audit))
            #expect(audit.action == "notifications.redrive" && audit.subject == "notification:\(uuid.uuidString)")
        }
    }

    @Test func failedDeliveriesAreRedrivenAndAudited() async throws {
        try await withSupportFixture { fixture in
            try await fixture.owner.withConnection { connection in
                try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "backend", url: "https://backend.example/hook", secrets: ["whsec_0123456789abcdef"]),
                                              on: connection)
                try AppendEvents.run([NewEvent(type: .grantRevoked, userID: "u1", data: "{}")], on: connection)
            }
            try await fixture.owner.query("UPDATE receiptq.deliveries SET state = 'failed', last_error = 'HTTP 500'")
            let moved = try await fixture.operations.redriveDeliveries(endpoint: "backend", SupportFixture.action("backend fixed"))
            #expect(moved.ids == [1])
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.deliveries WHERE state = 'queued'") == 1)
            let audit = try await fixture.audit(try #require(moved.audit))
            #expect(audit.action == "deliveries.redrive" && audit.subject == "endpoint:backend" && audit.after == "{\"redriven\": 1}")
        }
    }

    @Test func aTransferWithAnAppAccountTokenSetsItAtAppleFirst() async throws {
        try await withSupportFixture { fixture in
            let bought = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.pro", type: "Non-Consumable", customer: "c1",
                                                                            notify: false))
            try await fixture.grant(bought.transactionId, user: "old")
            let token = UUID()
            let audit = try await fixture.operations.transfer(originalTransactionID: bought.originalTransactionId, toUser: "new", appAccountToken: token,
                                                              SupportFixture.action("account merge"))
            let latest = try #require(fixture.fake.serverAPI.purchases.latest(originalTransactionId: bought.originalTransactionId, in: .production))
            #expect(latest.appAccountToken?.lowercased() == token.uuidString.lowercased())
            #expect(try await fixture.audit(audit).action == "purchase.transfer")
            // Apple refusing (no such purchase there) moves nothing.
            try await fixture.grant("not-at-apple", user: "old")
            await #expect(throws: SupportError.self) {
                _ = try await fixture.operations.transfer(originalTransactionID: "not-at-apple", toUser: "new", appAccountToken: UUID(), SupportFixture.action())
            }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants WHERE transaction_id = 'not-at-apple' AND user_id = 'old'") == 1)
        }
    }
}
