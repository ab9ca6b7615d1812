import Foundation
import Postgres
import Support
import Testing

/// The story pages say what they found: search names what the term matched (or that nothing
/// did), and a purchase's page tells its story as one timeline in time order.
@Suite("Console story: search says what it matched, a purchase's timeline in order")
struct ConsoleStoryTests {
    static func matched(_ html: String) -> String {
        guard let start = html.range(of: "<p id=\"matched\""), let end = html[start.upperBound...].range(of: "</p>") else { return "" }
        return String(html[start.lowerBound..<end.upperBound]).replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression)
    }

    @Test func searchSaysWhatTheTermMatched() async throws {
        try await withSupportFixture { fixture in
            try await fixture.grant("t-1", user: "u-1")
            let job = try await fixture.owner.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason)
                VALUES ('c2VlZA==', 't-2', 'u-2', 'com.example.coins', 'failed', 3, now(), 'gave up') RETURNING id
                """)[0].decode("id", as: Int64.self)
            try await fixture.owner.query("INSERT INTO receiptq.orders (order_id, user_id, product_id) VALUES ('ORD-7', 'u-3', 'com.example.pro')")
            try await SupportServerTests.withServer(fixture) { base in
                for (term, said) in [("u-1", "Matched user id u-1."), ("t-1", "Matched transaction id t-1. Its story: purchase t-1."), ("t-2", "Matched transaction id t-2."),
                                     ("ORD-7", "Matched order id ORD-7."), (String(job), "Matched job id \(job)."),
                                     ("nobody", "No match for nobody as a user, transaction, original transaction, order or job id in our records.")] {
                    let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console/search?q=" + term)
                    #expect(status == 200)
                    #expect(Self.matched(html) == said, "\(term): \(Self.matched(html))")
                }
            }
        }
    }

    @Test func aPurchasesTimelineTellsItsStoryInTimeOrder() async throws {
        try await withSupportFixture { fixture in
            try await fixture.owner.withConnection { db in
                try db.query("BEGIN")
                try db.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ('tp-1', 'u-7', 'Production', 'proof')")
                let job = try db.query("""
                    INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, apple_status, finished_at,
                                               purchase_key, created_at)
                    VALUES ('c2VlZA==', 'tp-1', 'u-7', 'com.example.pro', 'granted', 2, 0, now() - interval '3 h', 'purchase:tp-1',
                            now() - interval '3 h 1 min') RETURNING id
                    """)[0].decode("id", as: Int64.self)
                try db.query("""
                    INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                                 product_type, granted_at, revoked_at, revocation_reason)
                    VALUES ('tp-1', 'tp-1', $1, 'u-7', 'com.example.pro', 'Production', 'purchase:tp-1', 'non_consumable', now() - interval '3 h',
                            now() - interval '5 min', 'refunded')
                    """, [job])
                try db.query("INSERT INTO receiptq.webhook_endpoints (id, url, secrets) VALUES ('be', 'https://be.example/h', '{s}')")
                try db.query("""
                    INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, body, created_at)
                    VALUES ('verdict.granted', 'u-7', $1, 'purchase:tp-1', '{}', now() - interval '3 h')
                    """, [job])
                try db.query("""
                    UPDATE receiptq.deliveries SET state = 'delivered', attempts = 1, last_status = 200, created_at = now() - interval '3 h',
                           delivered_at = now() - interval '2 h 59 min' WHERE user_id = 'u-7'
                    """)
                try db.query("""
                    INSERT INTO receiptq.notifications (notification_uuid, notification_type, environment, signed_date, original_transaction_id,
                                                        transaction_id, signed_payload, state, received_at, applied_at, outcome)
                    VALUES (gen_random_uuid(), 'REFUND', 'Production', now() - interval '6 min', 'tp-1', 'tp-1', 'x', 'applied',
                            now() - interval '6 min', now() - interval '5 min', 'revoked')
                    """)
                try db.query("""
                    INSERT INTO receiptq.revocations (transaction_id, original_transaction_id, revoked_at, reason, revocation_reason, signed_at, source)
                    VALUES ('tp-1', 'tp-1', now() - interval '7 min', 'refund', 1, now() - interval '6 min', 'history')
                    """)
                try db.query("""
                    INSERT INTO receiptq.support_audit (actor, action, subject, why, at)
                    VALUES ('alice', 'purchase.note', 'original_transaction:tp-1', 'customer called', now() - interval '1 min')
                    """)
                try db.query("COMMIT")
            }
            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console/purchases/tp-1")
                #expect(status == 200)
                let list = try #require(html.range(of: "<ol class=\"timeline\" id=\"timeline\">").flatMap { start in
                    html[start.upperBound...].range(of: "</ol>").map { String(html[start.upperBound..<$0.lowerBound]) }
                })
                let entries = list.components(separatedBy: "<li>").dropFirst()
                    .map { $0.replacingOccurrences(of: #"<[^>]+>"#, with: "", options: .regularExpression) }
                let expected = ["Submitted (receipt) by u-7", "Verdict: granted after 2 attempt(s), Apple status 0", "Granted com.example.pro to u-7",
                                "Event verdict.granted", "Queued webhook to be", "Delivered to be", "Refund of transaction tp-1", "Apple sent REFUND",
                                "Applied REFUND", "Grant revoked: com.example.pro", "alice: purchase.note"]
                #expect(entries.count == expected.count, "\(entries)")
                for (entry, what) in zip(entries, expected) { #expect(entry.contains(what), "\(entry) is not \(what)") }
                #expect(list.contains("<a href=\"/console/customers/u-7\">u-7</a>") && list.contains("<a href=\"/console/jobs/"))
                #expect(entries.allSatisfy { $0.contains(" ago") }, "each entry has its relative time")
            }
        }
    }
}
