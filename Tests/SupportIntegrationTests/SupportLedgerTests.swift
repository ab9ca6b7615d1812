import Foundation
import Postgres
import ReceiptQueue
import Support
import Testing

/// Manual grants, revocations and transfers: each writes the ledger, the event backends receive
/// and its audit row (who, when, why, before and after) at once, as the `receiptq_support` login.
@Suite("Support: manual grant, revoke and transfer, each audited")
struct SupportLedgerTests {
    @Test func aManualGrantIsMarkedManualEmitsAnEventAndIsAudited() async throws {
        try await withSupportFixture { fixture in
            let audit = try await fixture.operations.grant(userID: "u1", productID: "com.example.gems", reference: "ticket-42",
                                                           productType: "non_consumable", SupportFixture.action("outage compensation"))
            let grant = try await fixture.owner.query("SELECT user_id, manual_by, job_id FROM receiptq.grants WHERE purchase_key = 'manual:ticket-42'")
            #expect(grant.count == 1)
            #expect(try grant[0].decode("manual_by", as: String.self) == "alice")
            #expect(try grant[0].decode("job_id", as: Int64.self) < 0)
            #expect(try await fixture.count("""
                SELECT count(*) FROM receiptq.events WHERE type = 'grant.granted_manually' AND user_id = 'u1' AND body->>'manual' = 'true'
                """) == 1)
            let row = try await fixture.audit(audit)
            #expect(row.actor == "alice" && row.action == "grant.manual" && row.subject == "user:u1" && row.why == "outage compensation")
            #expect(row.before == nil && row.after?.contains("manual:ticket-42") == true)
            // It is an entitlement like any other.
            #expect(try await fixture.operations.customer(userID: "u1").contains("com.example.gems"))
            // The console pages grants and jobs itself: the rest of the story comes without them, entitlements included.
            let paged = try #require(try JSONSerialization.jsonObject(
                with: Data(try await fixture.operations.customer(userID: "u1", without: [.grants, .jobs]).utf8)) as? [String: Any])
            #expect((paged["grants"] as? [Any])?.isEmpty == true && (paged["jobs"] as? [Any])?.isEmpty == true)
            #expect((paged["entitlements"] as? [Any])?.isEmpty == false && (paged["audit"] as? [Any])?.count == 1)
            // The same reference twice is refused, and nothing more is written.
            do {
                _ = try await fixture.operations.grant(userID: "u1", productID: "x", reference: "ticket-42", productType: "consumable",
                                                       SupportFixture.action())
                Issue.record("granted the same reference twice")
            } catch let error as SupportError {
                #expect(error.kind == .conflict, "\(error)")
            }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit") == 1)
        }
    }

    @Test func aManualGrantOfASubscriptionIsAnEntitlementUntilItsEndAndAGrantWithoutTypeOrEndIsRefusedByName() async throws {
        try await withSupportFixture { fixture in
            let ends = Date().addingTimeInterval(30 * 86_400)
            _ = try await fixture.operations.grant(userID: "u1", productID: "com.example.monthly", reference: "t-sub", productType: "auto_renewable",
                                                   expiresAt: ends, SupportFixture.action("outage compensation"))
            _ = try await fixture.operations.grant(userID: "u1", productID: "com.example.pass", reference: "t-pass", productType: "non_renewing",
                                                   expiresAt: try SupportLedger.accessEnd(expiresAt: nil, days: 7), SupportFixture.action())
            let entitlements = try await fixture.owner.withConnection { try ListEntitlements.run(userID: "u1", on: $0) }
            #expect(entitlements.map(\.productID).sorted() == ["com.example.monthly", "com.example.pass"])
            let monthly = try #require(entitlements.first { $0.productID == "com.example.monthly" })
            #expect(abs((monthly.expiresDate ?? .distantPast).timeIntervalSince(ends)) < 1)
            #expect(try await fixture.count("""
                SELECT count(*) FROM receiptq.events WHERE type = 'grant.granted_manually' AND body->>'expires_date' IS NOT NULL
                """) == 2)
            // Refused, each naming what is missing, and nothing written.
            for (type, end, words) in [(nil, nil, "product_type"), ("auto_renewable", nil, "when its access ends"),
                                       ("non_renewing", Date().addingTimeInterval(-60), "when its access ends"),
                                       ("non_consumable", ends, "has no end")] as [(String?, Date?, String)] {
                do {
                    _ = try await fixture.operations.grant(userID: "u1", productID: "p", reference: "r-\(type ?? "none")", productType: type,
                                                           expiresAt: end, SupportFixture.action())
                    Issue.record("granted \(type ?? "no type") ending \(String(describing: end))")
                } catch let error as SupportError {
                    #expect(error.kind == .invalid && error.message.contains(words), "\(error)")
                }
            }
            #expect(throws: SupportError.self) { try SupportLedger.accessEnd(expiresAt: ends, days: 3) }
            #expect(throws: SupportError.self) { try SupportLedger.accessEnd(expiresAt: nil, days: 0) }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants") == 2)
        }
    }

    @Test func aManualRevocationKeepsTheRowEmitsGrantRevokedAndRecordsBeforeAndAfter() async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("t1", user: "u1")
            let audit = try await fixture.operations.revoke(purchaseKey: "purchase:t1", SupportFixture.action("chargeback by bank"))
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants WHERE purchase_key = 'purchase:t1' AND revoked_at IS NOT NULL") == 1)
            #expect(try await fixture.count("""
                SELECT count(*) FROM receiptq.events WHERE type = 'grant.revoked' AND user_id = 'u1' AND body->>'manual' = 'true'
                  AND body->>'reason' = 'manual: chargeback by bank'
                """) == 1)
            let row = try await fixture.audit(audit)
            #expect(row.action == "grant.revoke" && row.subject == "user:u1")
            #expect(row.before?.contains("\"revoked_at\": null") == true)
            #expect(row.after?.contains("\"revoked_at\": null") == false)
            await #expect(throws: SupportError.self) { _ = try await fixture.operations.revoke(purchaseKey: "purchase:t1", SupportFixture.action()) }
            do {
                _ = try await fixture.operations.revoke(purchaseKey: "purchase:nothing", SupportFixture.action())
                Issue.record("revoked a grant that does not exist")
            } catch let error as SupportError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test func aTransferMovesEveryGrantOfThePurchaseAndTellsBothAccounts() async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("p1", original: "o1", user: "old", key: "period:1")
            try await fixture.grant("p2", original: "o1", user: "old", key: "period:2")
            let audit = try await fixture.operations.transfer(originalTransactionID: "o1", toUser: "new", appAccountToken: nil,
                                                              SupportFixture.action("account merge, ticket 7"))
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants WHERE original_transaction_id = 'o1' AND user_id = 'new'") == 2)
            let events = try await fixture.owner.query("""
                SELECT user_id, body->>'direction' AS direction FROM receiptq.events WHERE type = 'grant.transferred' ORDER BY sequence
                """)
            #expect(try events.map { "\(try $0.decode("user_id", as: String.self)):\(try $0.decode("direction", as: String.self))" } == ["old:out", "new:in"])
            let row = try await fixture.audit(audit)
            #expect(row.action == "purchase.transfer" && row.subject == "original_transaction:o1")
            #expect(row.before?.contains("\"user_id\": \"old\"") == true && row.after?.contains("\"user_id\": \"new\"") == true)
        }
    }

    @Test(arguments: ["family", "revoked", "same"])
    func theTransferPolicyRefuses(_ case: String) async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("f1", user: "old", ownership: `case` == "family" ? "FAMILY_SHARED" : "PURCHASED",
                                    key: `case` == "family" ? "family:old:f1" : nil)
            if `case` == "revoked" { _ = try await fixture.operations.revoke(purchaseKey: "purchase:f1", SupportFixture.action()) }
            do {
                _ = try await fixture.operations.transfer(originalTransactionID: "f1", toUser: `case` == "same" ? "old" : "new",
                                                          appAccountToken: nil, SupportFixture.action())
                Issue.record("transferred: \(`case`)")
            } catch let error as SupportError {
                #expect(error.kind == (`case` == "same" ? .invalid : .conflict))
            }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.grants WHERE user_id = 'new'") == 0)
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit WHERE action = 'purchase.transfer'") == 0)
        }
    }

    @Test func theAuditLogIsAppendOnlyForEveryRoleTheOwnerIncluded() async throws {
        try await withSupportFixture { fixture in
            _ = try await fixture.operations.grant(userID: "u1", productID: "p", reference: "r1", productType: "consumable", SupportFixture.action())
            for (pool, sql) in [(fixture.support, "UPDATE receiptq.support_audit SET why = 'nothing happened'"),
                                (fixture.support, "DELETE FROM receiptq.support_audit"),
                                (fixture.owner, "UPDATE receiptq.support_audit SET why = 'nothing happened'"),
                                (fixture.owner, "DELETE FROM receiptq.support_audit"),
                                (fixture.owner, "TRUNCATE receiptq.support_audit")] {
                do {
                    try await pool.query(sql)
                    Issue.record("ran: \(sql)")
                } catch let error as PostgresError {
                    #expect(error.sqlState == "42501", "\(sql): \(error)")
                }
            }
            #expect(try await fixture.count("SELECT count(*) FROM receiptq.support_audit WHERE why = 'ticket 42'") == 1)
        }
    }

    @Test func theSupportLoginWritesTheLedgerAndTheOutboxOnlyThroughTheAuditedFunctions() async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("t1", user: "u1")
            // A job to forge a verdict on (an UPDATE that matches no row refuses nothing).
            _ = try await JobQueue(pool: fixture.owner).enqueue([NewJob(receiptData: "cg==", transactionID: "t9", userID: "u9")])
            for sql in [
                "INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key) VALUES ('x', 'x', 1, 'u', 'p', 'Production', 'purchase:x')",
                "UPDATE receiptq.grants SET user_id = 'thief'",
                "INSERT INTO receiptq.events (type, user_id, body) VALUES ('grant.revoked', 'u1', '{}')",
                // Verdicts forged on a job, as rows the table's checks accept: the guard refuses the
                // rejection (only a worker's login writes a verdict); the grant also needs a purchase
                // key, a column the support login may not write at all.
                "UPDATE receiptq.jobs SET state = 'rejected', finished_at = now()",
                "UPDATE receiptq.jobs SET state = 'granted', finished_at = now(), purchase_key = 'purchase:t1'",
                "SELECT receipt_data FROM receiptq.jobs",
                "UPDATE receiptq.support_audit SET actor = 'bob'",
            ] {
                do {
                    try await fixture.support.query(sql)
                    Issue.record("the support login ran: \(sql)")
                } catch let error as PostgresError {
                    #expect(error.sqlState == "42501", "\(sql): \(error)")
                }
            }
            // The read-only login cannot act at all, not even through the functions.
            do {
                _ = try await fixture.readonly.withConnection {
                    try SupportLedger.grant(SupportFixture.action(), userID: "u", productID: "p", reference: "r", productType: "consumable", on: $0)
                }
                Issue.record("the read-only login granted")
            } catch let error as PostgresError {
                #expect(error.sqlState == "42501")
            }
        }
    }
}
