import Foundation
import Postgres
@testable import Support
import Testing

/// The overview's charts and the revenue page. The chart type is pure (series in, SVG out): its
/// scale, its empty state and its escaping are checked without a database. Then, on a real
/// database over real HTTP: the charts' drawn values and their tables are the query's figures and
/// the seeded jobs'; the revenue page's figures are those of a seeded ledger.
@Suite("Console charts and revenue: SVG from the tables, figures from the ledger")
struct ConsoleChartsTests {
    // MARK: the chart, pure

    @Test func aScaleIsANiceNumberAtOrAboveTheHighestStack() {
        #expect([0, 1, 2, 3, 5, 7, 11, 20, 21, 99, 101].map(ConsoleChart.niceTop) == [1, 1, 2, 5, 5, 10, 20, 20, 50, 100, 200])
        #expect(ConsoleChart.ticks(top: 20) == [0, 5, 10, 15, 20])
        #expect(ConsoleChart.ticks(top: 10) == [0, 5, 10])
        #expect(ConsoleChart.ticks(top: 5) == [0, 5])
    }

    @Test func barsStackTheSeriesAndTheTableHoldsTheSameNumbers() {
        let chart = ConsoleChart(id: "t", title: "Verdicts <x>", description: "d & e", labels: ["10:00", "10:01", "10:02"],
                                 series: [.init(name: "granted", values: [1, 0, 3]), .init(name: "fail<ed>", values: [2, 0, 1])])
        #expect(chart.totals == [3, 0, 4])
        let html = chart.html
        #expect(Self.drawn(html, series: "granted") == [1, 3])
        #expect(Self.drawn(html, series: "fail&lt;ed&gt;") == [2, 1])
        #expect(Self.tableRows(html, table: "chart-t-table") == [["10:00", "1", "2", "3"], ["10:01", "0", "0", "0"], ["10:02", "3", "1", "4"]])
        #expect(html.contains("<title id=\"chart-t-title\">Verdicts &lt;x&gt;</title>"))
        #expect(html.contains("role=\"img\" aria-labelledby=\"chart-t-title chart-t-desc\""))
        #expect(html.contains("<desc id=\"chart-t-desc\">d &amp; e; highest 4, total 7 over 3 intervals</desc>"))
        #expect(!html.contains("<x>") && !html.contains("fail<ed>"))
        #expect(html.contains(">5</text>"), "top of the scale is 5 for a highest stack of 4")
        #expect(html.contains("<details class=\"chart-numbers\" id=\"chart-t-numbers\">"), "an id: the live refresh keeps it open")
    }

    @Test func noDataSaysSoInsteadOfDrawingAnEmptyFrame() {
        let chart = ConsoleChart(id: "e", title: "Nothing", description: "d", labels: ["10:00", "10:01"],
                                 series: [.init(name: "granted", values: [0, 0])])
        #expect(chart.isEmpty)
        #expect(chart.html.contains("No data"))
        #expect(!chart.html.contains("<svg"))
        #expect(Self.tableRows(chart.html, table: "chart-e-table").count == 2, "the table still says every interval was 0")
        #expect(ConsoleChart(id: "z", title: "z", description: "z", labels: [], series: []).html.contains("No data"))
    }

    // MARK: helpers

    /// The `data-value`s of the bars of one series, left to right.
    static func drawn(_ html: String, series: String) -> [Int] {
        html.components(separatedBy: "data-series=\"\(series)\" data-value=\"").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    /// The cells (header cell first) of each body row of table `id`.
    static func tableRows(_ html: String, table id: String) -> [[String]] {
        guard let start = html.range(of: "<table id=\"\(id)\"") else { return [] }
        let rest = html[start.upperBound...]
        let body = rest[rest.range(of: "<tbody>")!.upperBound..<rest.range(of: "</tbody>")!.lowerBound]
        let cell = try! NSRegularExpression(pattern: "<t[hd][^>]*>(.*?)</t[hd]>")
        return body.components(separatedBy: "<tr>").dropFirst().map { row in
            cell.matches(in: row, range: NSRange(row.startIndex..., in: row)).map { match in
                String(row[Range(match.range(at: 1), in: row)!]).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            }
        }
    }

    /// The figure (a `<dd>`) labelled `label` of the figures list `id`.
    static func figure(_ html: String, _ id: String, _ label: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let dt = rest.range(of: ">\(label)</dt>") else { return nil }
        let after = rest[dt.upperBound...]
        guard let dd = after.range(of: "<dd"), let close = after.range(of: "</dd>") else { return nil }
        let inner = after[dd.upperBound..<close.lowerBound]
        return String(inner[(inner.range(of: ">")!.upperBound)...]).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
    }

    // MARK: on a real database

    @Test func theOverviewsChartsAreTheQuerysFiguresAndTheSeededJobs() async throws {
        try await withSupportFixture { fixture in
            // Three granted (created 6 min ago, finished 5 min ago), two failed (13 → 12 min ago),
            // one queued since 30 min ago: waiting is 1 now, 4 at the end of the minute 6 min ago.
            try await fixture.owner.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, product_id, state, attempts, created_at, finished_at, purchase_key)
                SELECT 'c2VlZA==', 'ch-' || s || '-' || g, 'u-ch', 'p', s, 1, now() - (m + 1) * interval '1 min', now() - m * interval '1 min',
                       CASE WHEN s = 'granted' THEN 'purchase:ch-' || g END
                FROM (VALUES ('granted', 5, 3), ('failed', 12, 2)) v(s, m, n), generate_series(1, n) g
                """)
            try await fixture.owner.query("""
                INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, created_at)
                VALUES ('c2VlZA==', 'ch-q', 'u-ch', 'queued', now() - interval '30 min')
                """)
            let query = try await ConsoleQueries.run(ConsoleCharts.jobs(.hour), on: fixture.owner)
            #expect(query.count == 60, "one row a minute")
            #expect(query.map { ConsoleCharts.int($0["granted"]) }.reduce(0, +) == 3)
            #expect(query.map { ConsoleCharts.int($0["failed"]) }.reduce(0, +) == 2)
            #expect(ConsoleCharts.int(query.last?["depth"]) == 1)
            #expect(query.map { ConsoleCharts.int($0["depth"]) }.max() == 4)
            #expect(query.allSatisfy { ConsoleCharts.int($0["depth"]) >= 0 })
            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console")
                #expect(status == 200)
                let table = Self.tableRows(html, table: "chart-verdicts-hour-table")
                #expect(table.count == 60)
                #expect(table.map { Int($0[1])! } == query.map { ConsoleCharts.int($0["granted"]) })
                #expect(table.map { Int($0[3])! } == query.map { ConsoleCharts.int($0["failed"]) })
                #expect(Self.drawn(html, series: "granted") == [3])
                #expect(Self.drawn(html, series: "failed") == [2])
                let depth = Self.tableRows(html, table: "chart-queue-depth-hour-table")
                #expect(depth.map { Int($0[1])! } == query.map { ConsoleCharts.int($0["depth"]) })
                #expect(html.contains("id=\"chart-notifications-hour\"") && html.contains("No data"), "no notifications: said, not drawn")
                let (dayStatus, day) = try await ConsolePagesTests.get(fixture, base + "/console?window=day")
                #expect(dayStatus == 200)
                let dayTable = Self.tableRows(day, table: "chart-verdicts-day-table")
                #expect(dayTable.count == 96, "one row each 15 minutes")
                #expect(dayTable.map { Int($0[1])! }.reduce(0, +) == 3 && dayTable.map { Int($0[3])! }.reduce(0, +) == 2)
                #expect(try await ConsolePagesTests.get(fixture, base + "/console?window=week").status == 400)
            }
        }
    }

    /// A ledger with known figures (Production): see each row's comment.
    static func seedLedger(_ fixture: SupportFixture) async throws {
        try await fixture.owner.query("""
            INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source)
            SELECT o, 'u-' || o, 'Production', 'proof' FROM unnest(ARRAY['ra', 'rb', 'rc', 'rd', 're', 'rf', 'rg', 'rr']) o
            """)
        try await fixture.owner.query("""
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                         product_type, price, currency, purchase_date, expires_date, revoked_at)
            SELECT t, o, 1, 'u-' || o, p, 'Production', 'period:' || t, 'auto_renewable', price, cur,
                   now() - bought * interval '1 day', now() + ends * interval '1 day', NULL
            FROM (VALUES
                ('ra', 'ra', 'com.example.monthly', 9990, 'USD', 40, -10),     -- first period before the 30 days
                ('ra-2', 'ra', 'com.example.monthly', 9990, 'USD', 10, 20),    -- renewed 10 days ago: 9.99 a month
                ('rb', 'rb', 'com.example.yearly', 119990, 'USD', 5, 360),     -- new, a year: 119.99 / 12 = 10.00 a month
                ('rc', 'rc', 'com.example.monthly', 8990, 'EUR', 3, 28),       -- new, 31 days, in a grace period: 8.99
                ('rd', 'rd', 'com.example.monthly', NULL, NULL, 1, 29),        -- new, no price: price unknown
                ('re', 're', 'com.example.monthly', 9990, 'USD', 33, -2),      -- expired 2 days ago: churned
                ('rf', 'rf', 'com.example.monthly', 0, 'USD', 20, -13),        -- a trial 20 days ago…
                ('rf-2', 'rf', 'com.example.monthly', 9990, 'USD', 13, 17),    -- …converted: 9.99
                ('rg', 'rg', 'com.example.monthly', 0, 'USD', 2, 5)            -- a trial still running: 0
            ) v(t, o, p, price, cur, bought, ends)
            """)
        try await fixture.owner.query("""
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                         product_type, price, currency, purchase_date, revoked_at, revocation_reason)
            VALUES ('rr', 'rr', 1, 'u-rr', 'com.example.lifetime', 'Production', 'purchase:rr', 'non_consumable', 49990, 'USD',
                    now() - interval '9 days', now() - interval '1 day', 'refunded')
            """)
        try await fixture.owner.query("""
            INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, product_id, state, expires_date, signed_at)
            SELECT o, 'Production', 'u-' || o, p, s, now() + ends * interval '1 day', now()
            FROM (VALUES ('ra', 'com.example.monthly', 'active', 20), ('rb', 'com.example.yearly', 'active', 360),
                         ('rc', 'com.example.monthly', 'grace_period', 28), ('rd', 'com.example.monthly', 'active', 29),
                         ('re', 'com.example.monthly', 'expired', -2), ('rf', 'com.example.monthly', 'active', 17),
                         ('rg', 'com.example.monthly', 'active', 5)) v(o, p, s, ends)
            ON CONFLICT (original_transaction_id, environment) DO UPDATE SET product_id = excluded.product_id, state = excluded.state,
                expires_date = excluded.expires_date
            """)
    }

    @Test func theRevenuePageReadsTheSeededLedger() async throws {
        try await withSupportFixture { fixture in
            try await Self.seedLedger(fixture)
            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console/revenue")
                #expect(status == 200)
                #expect(html.contains("<a href=\"/console/revenue\">Revenue</a>"), "in the navigation")
                #expect(Self.figure(html, "revenue-states", "Active") == "6")
                #expect(Self.figure(html, "revenue-states", "In grace period") == "1")
                #expect(Self.figure(html, "revenue-states", "Expired") == "1")
                let expected: [[String]] = [
                    ["com.example.monthly", "EUR", "1", "0", "8.99"],
                    ["com.example.monthly", "USD", "3", "1", "19.98"],
                    ["com.example.yearly", "USD", "1", "0", "10.00"],
                    ["com.example.monthly", "price unknown", "1", "0", ""],
                ]
                #expect(Self.tableRows(html, table: "revenue-mrr") == expected)
                #expect(html.contains("1 active subscription(s) with price unknown"))
                let days = Self.tableRows(html, table: "revenue-days")
                #expect(days.count == 30)
                func total(_ column: Int) -> Int { days.map { Int($0[column]) ?? -1 }.reduce(0, +) }
                let totals: [Int] = [total(1), total(2), total(3), total(4)]
                #expect(totals == [5, 2, 1, 1], "new, renewed, churned, refunded")
                let chart: [[String]] = Self.tableRows(html, table: "chart-revenue-days-table").map { Array($0[1...4]) }
                let listed: [[String]] = days.reversed().map { Array($0[1...4]) }
                #expect(chart == listed, "the chart's numbers are the table's")
                #expect(Self.figure(html, "revenue-trials", "Trials started (30 days)") == "2")
                #expect(Self.figure(html, "revenue-trials", "Converted to paid") == "1")
                #expect(Self.figure(html, "revenue-trials", "Still in trial") == "1")
                #expect(html.contains("no exchange rates") && html.contains("no Apple commission"))
                let (_, sandbox) = try await ConsolePagesTests.get(fixture, base + "/console/revenue?environment=Sandbox")
                #expect(Self.figure(sandbox, "revenue-states", "Active") == "0")
                #expect(try await ConsolePagesTests.get(fixture, base + "/console/revenue?environment=Moon").status == 400)
            }
        }
    }
}
