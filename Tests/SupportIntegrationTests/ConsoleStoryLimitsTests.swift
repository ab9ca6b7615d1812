import Foundation
import Postgres
@testable import Support
import Testing

/// The story pages' lists that are not paged say when they are cut: a job's events and webhook
/// deliveries (a few per verdict, so 50 is more than a job has) and search's matches (the newest
/// 20 a match; the customer's page pages the rest). A job's events are found by its index, not by
/// reading every retained event.
@Suite("Console: a story's unpaged lists say when they are cut, and a job's events are read by index")
struct ConsoleStoryLimitsTests {
    @Test func aJobWithMoreThanFiftyEventsSaysSoAndOneWithFewDoesNot() async throws {
        try await withSupportFixture { fixture in
            try await fixture.owner.query("""
                INSERT INTO receiptq.jobs (id, receipt_data, transaction_id, user_id, state, attempts, finished_at, outcome_reason)
                OVERRIDING SYSTEM VALUE VALUES (9001, 'c2VlZA==', 'lim-1', 'u-lim', 'rejected', 1, now(), 'test'),
                                               (9002, 'c2VlZA==', 'lim-2', 'u-lim', 'rejected', 1, now(), 'test')
                """)
            try await fixture.owner.query("""
                INSERT INTO receiptq.events (type, user_id, job_id, body)
                SELECT 'verdict.rejected', 'u-lim', CASE WHEN g <= 51 THEN 9001 ELSE 9002 END, '{}' FROM generate_series(1, 53) g
                """)
            try await SupportServerTests.withServer(fixture) { base in
                let (status, many) = try await ConsolePagesTests.get(fixture, base + "/console/jobs/9001")
                #expect(status == 200)
                #expect(ConsoleChartsTests.tableRows(many, table: "events").count == 50)
                #expect(many.contains("id=\"events-more\"") && many.contains("more than 50 events"))
                let (_, few) = try await ConsolePagesTests.get(fixture, base + "/console/jobs/9002")
                #expect(ConsoleChartsTests.tableRows(few, table: "events").count == 2)
                #expect(!few.contains("events-more"))
            }
            // By its index, whatever else the table holds (enable_seqscan off: the plan says whether an index can serve it).
            let plan = try await fixture.owner.withConnection { connection -> String in
                try connection.query("SET enable_seqscan = off")
                let rows = try connection.query("EXPLAIN " + "SELECT sequence FROM receiptq.events WHERE job_id = $1 ORDER BY sequence LIMIT 51", [9001])
                return try rows.map { try $0.decode("QUERY PLAN", as: String.self) }.joined(separator: "\n")
            }
            #expect(plan.contains("events_job_idx"), "\(plan)")
        }
    }

    @Test func searchSaysItShowsTheNewestTwentyAMatchAndLinksTheCustomer() async throws {
        try await withSupportFixture { fixture in
            try await fixture.owner.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, created_at)
                SELECT 'c2VlZA==', 'many-' || g, 'u-many', 'queued', now() - g * interval '1 min' FROM generate_series(1, 25) g
                """)
            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console/search?q=u-many")
                #expect(status == 200)
                #expect(ConsoleChartsTests.tableRows(html, table: "jobs").count == 20)
                #expect(html.contains("id=\"jobs-more\"") && html.contains("<a href=\"/console/customers/u-many\">"))
                let (_, one) = try await ConsolePagesTests.get(fixture, base + "/console/search?q=many-3")
                #expect(ConsoleChartsTests.tableRows(one, table: "jobs").count == 1 && !one.contains("jobs-more"))
                let (_, customer) = try await ConsolePagesTests.get(fixture, base + "/console/customers/u-many")
                #expect(ConsoleChartsTests.tableRows(customer, table: "jobs").count == 25, "the customer's page has them all (one page of 50)")
            }
        }
    }
}
