import Foundation
import Support
import Testing

/// The console's pages over real HTTP on a seeded database: designed tables on every page (no
/// column name for a label), and an overview that refreshes its figures in place — never its form.
@Suite("Console pages: designed tables, live figures, forms left alone")
struct ConsolePagesTests {
    static func seed(_ fixture: SupportFixture) async throws -> Int64 {
        try await fixture.grant("t1", user: "u1")
        try await fixture.owner.query("INSERT INTO receiptq.worker_heartbeats (worker, host, pid, interval_ms) VALUES ('w1', 'localhost', 42, 3600000)")
        return try await fixture.owner.query("""
            INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, finished_at, outcome_reason)
            VALUES ('c2VlZA==', 't-failed', 'u1', 'com.example.coins', 'failed', 10, now(), 'gave up after 10 attempts; last error: HTTP 503')
            RETURNING id
            """)[0].decode("id", as: Int64.self)
    }

    static func get(_ fixture: SupportFixture, _ url: String) async throws -> (status: Int, html: String) {
        let answer = try await fixture.http.send(.get, url: url, headers: ["Authorization": SupportServerTests.basic("alice", SupportServerTests.adminToken)],
                                                 body: [], timeout: .seconds(10))
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }

    /// The inner markup of each `<div data-live="…">`, by name (divs nest: counted, not matched).
    static func liveParts(_ html: String) -> [String: String] {
        var parts: [String: String] = [:]
        var rest = html[...]
        while let open = rest.range(of: "<div data-live=\"") {
            let name = String(rest[open.upperBound...].prefix { $0 != "\"" })
            var depth = 1, cursor = rest.index(after: open.lowerBound)
            while depth > 0, cursor < rest.endIndex {
                let tail = rest[cursor...]
                if tail.hasPrefix("<div") { depth += 1 } else if tail.hasPrefix("</div>") { depth -= 1 }
                if depth > 0 { cursor = rest.index(after: cursor) }
            }
            parts[name] = String(rest[open.upperBound..<cursor])
            rest = rest[cursor...]
        }
        return parts
    }

    @Test func theOverviewRefreshesItsFiguresInPlaceAndNeverItsForm() async throws {
        try await withSupportFixture { fixture in
            _ = try await Self.seed(fixture)
            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await Self.get(fixture, base + "/console")
                #expect(status == 200)
                #expect(!html.contains("http-equiv"), "no whole-page reload over a form being typed in")
                #expect(html.contains("<a href=\"/console\" data-live-every=\"5\">Refresh</a>"), "without JavaScript, a Refresh link")
                let parts = Self.liveParts(html)
                #expect(Set(parts.keys) == ["fleet", "queue-depth", "queue-health", "failure-summary", "notification-health", "webhook-health",
                                            "consumption", "workers", "charts"])
                #expect(parts.values.allSatisfy { !$0.contains("<form") && !$0.contains("<input") }, "a live part never holds a form")
                #expect(html.contains("Pause the fleet") && html.contains("<span class=\"badge state-running\">running</span>"))
                for label in ["Oldest ready", "Failed (1 h)", "Failure rate (1 h)", "Last heartbeat", "Last seen"] {
                    #expect(html.contains(">\(label)</th>") || html.contains(">\(label)</dt>"), "\(label)")
                }
                #expect(!html.contains("oldest_ready_age") && !html.contains("failed_last_hour"))
                #expect(html.contains("<dd class=\"k-number\">100%</dd>"), "one failed of one finished in the hour")
                #expect(html.range(of: #"<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">(just now|\d+ s ago)</time>"#,
                                   options: .regularExpression) != nil)
            }
        }
    }

    @Test func everyPageShowsItsTablesUnderLabelsAPersonReads() async throws {
        try await withSupportFixture { fixture in
            let job = try await Self.seed(fixture)
            try await SupportServerTests.withServer(fixture) { base in
                for path in ["/console", "/console/failures", "/console/workers", "/console/webhooks", "/console/notifications", "/console/rate-budget",
                             "/console/audit", "/console/customers/u1", "/console/purchases/t1", "/console/jobs/\(job)", "/console/search?q=u1"] {
                    let (status, html) = try await Self.get(fixture, base + path)
                    #expect(status == 200, "\(path)")
                    let headings = html.components(separatedBy: "<th ").dropFirst().map { String($0.split(separator: ">", maxSplits: 1)[1].prefix { $0 != "<" }) }
                    #expect(headings.allSatisfy { !$0.contains("_") }, "\(path): \(headings.filter { $0.contains("_") })")
                    #expect(!html.contains("+00:00<"), "\(path): a raw timestamp")
                }
                let (_, failures) = try await Self.get(fixture, base + "/console/failures")
                #expect(failures.contains("<a href=\"/console/jobs/\(job)\">\(job)</a>") && failures.contains("<span class=\"badge state-failed\">failed</span>"))
                let (_, story) = try await Self.get(fixture, base + "/console/jobs/\(job)")
                #expect(story.contains("<th scope=\"row\">Customer</th><td class=\"k-id\"><a href=\"/console/customers/u1\">u1</a></td>"))
            }
        }
    }
}
