import Foundation
import Postgres
import Support
import Testing

/// The console's lists page by keyset over real HTTP on a real database: a row inserted between
/// two page loads moves nothing already seen, the last page has no "Older", filters narrow, and a
/// bad cursor, size or filter is a 400 naming the parameter — never a 500.
@Suite("Console paging: keyset pages stable under inserts, filters, 400 for a bad parameter")
struct ConsolePagingTests {
    static func get(_ fixture: SupportFixture, _ url: String) async throws -> (status: Int, html: String) {
        try await ConsolePagesTests.get(fixture, url)
    }

    /// `count` failed jobs of user `u9`, one a minute apart, the newest `newest` minutes ago; their ids, newest first.
    @discardableResult
    static func failed(_ fixture: SupportFixture, _ count: Int, newest: Int = 10, state: String = "failed", status: Int? = nil,
                       reason: String = "gave up: HTTP 503") async throws -> [Int64] {
        let rows = try await fixture.owner.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason, apple_status)
            SELECT 'c2VlZA==', 'tf-' || g || '-' || $2::int, 'u9', 'com.example.coins', $3, 3, now() - ($2::int + g) * interval '1 min', $4, $5
            FROM generate_series(0, $1::int - 1) g RETURNING id
            """, [count, newest, state, reason, status])
        return try rows.map { try $0.decode("id", as: Int64.self) }.sorted()   // g = 0 first: the newest, the lowest id
    }

    /// The job ids of table `id`, in the page's order.
    static func ids(_ html: String, table: String) -> [Int64] {
        guard let start = html.range(of: "<table id=\"\(table)\"") else { return [] }
        let tableHTML = html[start.upperBound...].prefix { _ in true }
        let end = tableHTML.range(of: "</table>").map { tableHTML[..<$0.lowerBound] } ?? tableHTML
        return end.components(separatedBy: "<a href=\"/console/jobs/").dropFirst().compactMap { Int64($0.prefix { $0.isNumber }) }
    }

    /// The href of the pager link labelled `label` ("Older →", "← Newer"), unescaped; nil when absent.
    static func link(_ html: String, _ label: String, pager: String) -> String? {
        guard let nav = html.range(of: "<nav class=\"pager\" id=\"\(pager)\"") else { return nil }
        let part = html[nav.upperBound...].prefix(while: { _ in true })
        let navHTML = part.range(of: "</nav>").map { part[..<$0.lowerBound] } ?? part
        for piece in navHTML.components(separatedBy: "<a href=\"").dropFirst() {
            let href = piece.prefix { $0 != "\"" }
            if piece.contains(">\(label)</a>") { return href.replacingOccurrences(of: "&amp;", with: "&") }
        }
        return nil
    }

    @Test func pagesOfFailuresAreStableUnderInsertsAndTheLastHasNoOlder() async throws {
        try await withSupportFixture { fixture in
            let all = try await Self.failed(fixture, 120)
            try await SupportServerTests.withServer(fixture) { base in
                let (status1, first) = try await Self.get(fixture, base + "/console/failures")
                #expect(status1 == 200)
                #expect(Self.ids(first, table: "failures") == Array(all[0..<50]), "newest first, 50 a page")
                #expect(Self.link(first, "← Newer", pager: "failures-pages") == nil, "the newest page has no Newer")
                let older = try #require(Self.link(first, "Older →", pager: "failures-pages"))
                // Five newer failures land between the loads: they go above page one, never onto page two.
                try await Self.failed(fixture, 5, newest: 0)
                let (_, second) = try await Self.get(fixture, base + older)
                #expect(Self.ids(second, table: "failures") == Array(all[50..<100]))
                let newer = try #require(Self.link(second, "← Newer", pager: "failures-pages"))
                let (_, backAgain) = try await Self.get(fixture, base + newer)
                #expect(Self.ids(backAgain, table: "failures") == Array(all[0..<50]), "Newer from page two is page one, as seen")
                let (_, third) = try await Self.get(fixture, base + Self.link(second, "Older →", pager: "failures-pages")!)
                #expect(Self.ids(third, table: "failures") == Array(all[100..<120]))
                #expect(Self.link(third, "Older →", pager: "failures-pages") == nil, "the last page has no Older")
                let (_, big) = try await Self.get(fixture, base + "/console/failures?size=200")
                #expect(Self.ids(big, table: "failures").count == 125)
            }
        }
    }

    @Test func filtersNarrowFailuresAuditNotificationsAndACustomersJobs() async throws {
        try await withSupportFixture { fixture in
            try await Self.failed(fixture, 3)
            let rejected = try await Self.failed(fixture, 2, newest: 100, state: "rejected", status: 21002, reason: "invalid receipt")
            try await fixture.owner.query("""
                INSERT INTO receiptq.support_audit (actor, action, subject, why)
                VALUES ('alice', 'jobs.redrive', 'job:1', 'outage over'), ('bob', 'grant.manual', 'user:u9', 'goodwill'),
                       ('bob', 'jobs.redrive', 'job:2', 'second try')
                """)
            try await fixture.owner.query("""
                INSERT INTO receiptq.notifications (notification_uuid, notification_type, environment, signed_date, original_transaction_id,
                                                    signed_payload, state, last_error)
                VALUES (gen_random_uuid(), 'REFUND', 'Production', now(), 'tq-1', 'x', 'quarantined', 'no such purchase'),
                       (gen_random_uuid(), 'DID_RENEW', 'Production', now(), 'tq-2', 'x', 'failed', 'boom')
                """)
            try await SupportServerTests.withServer(fixture) { base in
                let (_, byStatus) = try await Self.get(fixture, base + "/console/failures?state=rejected&apple_status=21002")
                #expect(Self.ids(byStatus, table: "failures") == rejected)
                let (_, byReason) = try await Self.get(fixture, base + "/console/failures?state=rejected&reason=nothing+like+it")
                #expect(Self.ids(byReason, table: "failures").isEmpty && byReason.contains("none"))
                let (_, bob) = try await Self.get(fixture, base + "/console/audit?operator=bob&action=jobs.redrive")
                #expect(bob.contains("second try") && !bob.contains("goodwill") && !bob.contains("outage over"))
                let (_, quarantined) = try await Self.get(fixture, base + "/console/notifications?state=quarantined")
                #expect(quarantined.contains("no such purchase") && !quarantined.contains("boom"))
                let (_, renewals) = try await Self.get(fixture, base + "/console/notifications?type=DID_RENEW")
                #expect(renewals.contains("boom") && !renewals.contains("no such purchase"))
                let (_, customer) = try await Self.get(fixture, base + "/console/customers/u9?jobs_state=rejected")
                // Submitted by one statement, at one moment: the key's id breaks the tie, newest (highest) first.
                #expect(Self.ids(customer, table: "jobs") == rejected.sorted(by: >))
            }
        }
    }

    @Test func aBadCursorSizeOrFilterIsA400NamingTheParameter() async throws {
        try await withSupportFixture { fixture in
            try await Self.failed(fixture, 2)
            try await SupportServerTests.withServer(fixture) { base in
                for (path, named) in [("/console/failures?before=abc", "before"), ("/console/failures?after=1_x", "after"),
                                      ("/console/failures?before=1_2_3", "before"), ("/console/failures?before=9223372036854775807_1", "before"), ("/console/failures?size=0", "size"),
                                      ("/console/failures?size=201", "size"), ("/console/failures?size=ten", "size"),
                                      ("/console/failures?state=deleted", "state"), ("/console/failures?apple_status=x", "apple_status"),
                                      ("/console/failures?before=1_2&after=1_2", "before"), ("/console/audit?before=x", "before"),
                                      ("/console/notifications?before=1_notauuid", "before"), ("/console/notifications?state=applied", "state"),
                                      ("/console/webhooks?after=1", "after"), ("/console/customers/u9?jobs_before=1", "jobs_before"),
                                      ("/console/customers/u9?grants_size=-3", "grants_size"),
                                      ("/console/customers/u9?jobs_state=lost", "jobs_state")] {
                    let (status, html) = try await Self.get(fixture, base + path)
                    #expect(status == 400, "\(path): \(status)")
                    #expect(html.contains(named), "\(path) does not name \(named)")
                }
                let (status, _) = try await Self.get(fixture, base + "/console/failures?before=9000000000000000_9223372036854775807")
                #expect(status == 200, "a cursor past every row is an empty page, not an error")
            }
        }
    }
}
