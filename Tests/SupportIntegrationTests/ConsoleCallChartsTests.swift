import Foundation
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import ReceiptQueue
@testable import Support
import Testing

/// The overview's charts of calls out (Apple's latency and failures, the breakers, webhook
/// deliveries), from `receiptq.call_minutes`. Line charts are pure (gaps, points, a table without
/// totals); the sums are written by the worker's login and the scheduler's, read by the console's
/// read-only login, pruned by the scheduler's, and drawn as the page's figures.
@Suite("Console: Apple's latency, breakers and webhook deliveries from the workers' per-minute sums")
struct ConsoleCallChartsTests {
    @Test func linesBreakWhereThereIsNoValueAndTheirTableHasNoTotal() {
        let chart = ConsoleChart(id: "l", title: "Latency", description: "d", labels: ["10:00", "10:01", "10:02", "10:03"],
                                 series: [.init(name: "p50", values: [4000, nil, 3000, 5000]), .init(name: "p99", values: [nil, nil, nil, 8000])],
                                 style: .lines, unit: "ms")
        #expect(!chart.isEmpty && chart.highest == 8000)
        let html = chart.html
        #expect(html.components(separatedBy: "<polyline").count - 1 == 1, "one run of two or more points: 10:02–10:03; 10:00 stands alone")
        #expect(ConsoleChartsTests.drawn(html, series: "p50") == [4000, 3000, 5000])
        #expect(ConsoleChartsTests.drawn(html, series: "p99") == [8000])
        #expect(ConsoleChartsTests.tableRows(html, table: "chart-l-table") == [["10:00", "4000", "–"], ["10:01", "–", "–"], ["10:02", "3000", "–"], ["10:03", "5000", "8000"]])
        #expect(html.contains("<th scope=\"col\">p50 (ms)</th>") && !html.contains(">Total<"))
        #expect(html.contains("highest 8000 ms over 4 intervals"))
        #expect(ConsoleChart(id: "n", title: "n", description: "d", labels: ["10:00"], series: [.init(name: "p50", values: [nil])], style: .lines).isEmpty)
    }

    static func buckets(_ milliseconds: [Double]) -> [Int] {
        var out = [Int](repeating: 0, count: CallTally.bucketCount)
        for ms in milliseconds { out[CallTally.bucket(milliseconds: ms)] += 1 }
        return out
    }

    @Test func theChartsAreTheSumsOfEveryProcessAndTheConsoleReadsThemAsItsOwnLogin() async throws {
        try await withSupportFixture { fixture in
            let worker = PostgresPool(configuration: try await fixture.database.configuration(as: .worker), size: 1)
            let scheduler = PostgresPool(configuration: try await fixture.database.configuration(as: .scheduler), size: 1)
            defer { worker.shutdown(); scheduler.shutdown() }
            // Three minutes ago: two workers' verifyReceipt calls (one added in two beats), a failure,
            // one breaker open; a webhook attempt failed. Eight days ago: a row the scheduler prunes.
            let minute = Int(Date().timeIntervalSince1970 / 60) * 60 - 180
            let a = CallTally.Minute(minute: minute, target: .verifyReceiptProduction, calls: 60, failures: 1,
                                     latencyBuckets: Self.buckets(Array(repeating: 3500, count: 59) + [5500]))
            let b = CallTally.Minute(minute: minute, target: .verifyReceiptProduction, calls: 40, failures: 0,
                                     latencyBuckets: Self.buckets(Array(repeating: 3500, count: 40)), breaker: .open)
            let hooks = CallTally.Minute(minute: minute, target: .webhooks, calls: 5, failures: 2, latencyBuckets: Self.buckets([5, 5, 5, 20, 900]))
            try await worker.withConnection { connection in
                try CallMinutes.add([a], process: "w1", on: connection)
                try CallMinutes.add([b, hooks], process: "w2", on: connection)
                try CallMinutes.add([CallTally.Minute(minute: minute, target: .verifyReceiptProduction, latencyBuckets: Self.buckets([])),
                                     CallTally.Minute(minute: minute - 8 * 86_400, target: .webhooks, calls: 1, latencyBuckets: Self.buckets([5]))],
                                    process: "w1", on: connection)
            }
            let summed = try await fixture.owner.query(
                "SELECT calls, latency_buckets::text AS b FROM receiptq.call_minutes WHERE process = 'w1' AND target = 'verify_receipt.production'")
            #expect(summed.count == 1)
            #expect(try summed[0].decode("calls", as: Int.self) == 60, "a second beat of the same minute adds to the row")
            #expect(try await scheduler.withConnection { try PruneCallMinutes.run(limit: 100, on: $0) } == 1, "past seven days: pruned by the scheduler's login")

            let rows = try await ConsoleQueries.run(ConsoleCallCharts.rows(.hour), on: fixture.readonly)
            let charts = ConsoleCallCharts.charts(rows, window: .hour)
            #expect(charts.map(\.labels.count) == [60, 60, 60, 60], "one point a minute")
            let latency = try #require(charts.first { $0.id == "apple-latency-hour" })
            let at = latency.labels.count - 4   // three minutes before the current one
            #expect(latency.series[0].values[at] == 4000 && latency.series[1].values[at] == 4000, "p50 and p99 of 100 calls, 99 at ≤ 4 s")
            #expect(latency.series[2].values.allSatisfy { $0 == nil }, "no Server API calls: no line, not a 0 ms one")
            #expect(latency.series[0].values.compactMap { $0 }.count == 1)
            let calls = try #require(charts.first { $0.id == "apple-calls-hour" })
            #expect(calls.series.map { $0.values[at] } == [99, 1])
            let breakers = try #require(charts.first { $0.id == "breakers-hour" })
            #expect(breakers.series.map { $0.values[at] } == [1, 0] && breakers.totals.reduce(0, +) == 1)
            let webhooks = try #require(charts.first { $0.id == "webhooks-hour" })
            #expect(webhooks.series.map { $0.values[at] } == [3, 2])

            try await SupportServerTests.withServer(fixture) { base in
                let (status, html) = try await ConsolePagesTests.get(fixture, base + "/console")
                #expect(status == 200)
                let table = ConsoleChartsTests.tableRows(html, table: "chart-apple-latency-hour-table")
                #expect(table.count == 60 && table[at] == [latency.labels[at], "4000", "4000", "–", "–"])
                #expect(ConsoleChartsTests.drawn(html, series: "failed").reduce(0, +) == 3, "1 Apple call, 2 webhook attempts")
                #expect(ConsoleChartsTests.tableRows(html, table: "chart-breakers-hour-table")[at] == [latency.labels[at], "1", "0", "1"])
                let (_, day) = try await ConsolePagesTests.get(fixture, base + "/console?window=day")
                let dayCalls = ConsoleChartsTests.tableRows(day, table: "chart-apple-calls-day-table")
                #expect(dayCalls.count == 96 && dayCalls.map { Int($0[1])! }.reduce(0, +) == 99)
            }
        }
    }
}
