import Foundation
import Postgres
import ReceiptQueue

/// The overview's charts of calls out — Apple's latency, its failures, the breakers, webhook
/// deliveries — from `receiptq.call_minutes`, the per-minute sums every worker (and the scheduler)
/// adds to (migration 0040). One range read of its primary key (minute first): at most a row per
/// minute, target and process.
///
/// Percentiles are read from the fleet's summed histogram, so they are exact to a bucket's upper
/// bound (`CallTally.latencyBoundsMilliseconds`: 3,000, 4,000, 5,000, 6,000 ms around Apple's
/// usual 3–6 s), not to the millisecond; the charts say so.
enum ConsoleCallCharts {
    static func rows(_ window: ConsoleCharts.Window) -> String {
        ConsoleQueries.rows("""
            WITH b AS (\(ConsoleCharts.buckets(window)))
            SELECT b.label, m.target, m.process, m.calls, m.failures, m.latency_buckets::text AS latency, m.breaker
            FROM b LEFT JOIN receiptq.call_minutes m
              ON m.minute >= (SELECT min(at) FROM b)                                                -- call_minutes_pkey
             AND date_bin('\(window.step)', m.minute, timestamptz '2000-01-01') = b.at
            ORDER BY b.at, m.target, m.process
            """)
    }

    /// One interval's sums, per kind of call.
    struct Interval: Equatable {
        var label: String
        var appleCalls = 0, appleFailures = 0
        var verifyReceiptLatency = [Int](repeating: 0, count: CallTally.bucketCount)
        var serverAPILatency = [Int](repeating: 0, count: CallTally.bucketCount)
        /// Processes × Apple targets whose breaker was open (half-open) at some time in the interval.
        var open: Set<String> = [], halfOpen: Set<String> = []
        var webhookCalls = 0, webhookFailures = 0
    }

    /// The query's rows, summed per interval in the buckets' order (an interval without rows is zeros).
    static func intervals(_ rows: [[String: Any]]) -> [Interval] {
        var out: [Interval] = []
        for row in rows {
            let label = ConsoleHTML.text(row["label"])
            if out.last?.label != label { out.append(Interval(label: label)) }
            guard let target = CallTarget(rawValue: ConsoleHTML.text(row["target"])) else { continue }
            let calls = ConsoleCharts.int(row["calls"]), failures = ConsoleCharts.int(row["failures"])
            let buckets = ConsoleHTML.text(row["latency"]).trimmingCharacters(in: CharacterSet(charactersIn: "{}"))
                .split(separator: ",").map { Int($0) ?? 0 }
            var interval = out.removeLast()
            switch target {
            case .webhooks:
                interval.webhookCalls += calls
                interval.webhookFailures += failures
            case .verifyReceiptProduction, .verifyReceiptSandbox, .serverAPIProduction, .serverAPISandbox:
                interval.appleCalls += calls
                interval.appleFailures += failures
                let isVerifyReceipt = target == .verifyReceiptProduction || target == .verifyReceiptSandbox
                for (i, count) in buckets.enumerated() where i < CallTally.bucketCount {
                    if isVerifyReceipt { interval.verifyReceiptLatency[i] += count } else { interval.serverAPILatency[i] += count }
                }
                let who = ConsoleHTML.text(row["process"]) + " " + target.rawValue
                switch CallBreakerState(rawValue: ConsoleHTML.text(row["breaker"])) {
                case .open: interval.open.insert(who)
                case .halfOpen: interval.halfOpen.insert(who)
                case .closed, nil: break
                }
            }
            out.append(interval)
        }
        return out
    }

    static func charts(_ rows: [[String: Any]], window: ConsoleCharts.Window) -> [ConsoleChart] {
        let intervals = intervals(rows), labels = intervals.map(\.label)
        func quantile(_ q: Double, _ buckets: KeyPath<Interval, [Int]>) -> [Int?] { intervals.map { CallTally.quantile(q, of: $0[keyPath: buckets]) } }
        let rounding = "read from the fleet's summed latency histogram, so each figure is the upper bound of its bucket (…, 3000, 4000, 5000, 6000, 8000 ms …)"
        return [
            ConsoleChart(id: "apple-latency-\(window.rawValue)", title: "Apple's latency, \(window.words)",
                         description: "How long Apple took to answer, median (p50) and p99 per interval, verifyReceipt and the App Store Server API; \(rounding)",
                         labels: labels,
                         series: [ConsoleChart.Series(name: "verifyReceipt p50", values: quantile(0.5, \.verifyReceiptLatency), tone: 4),
                                  ConsoleChart.Series(name: "verifyReceipt p99", values: quantile(0.99, \.verifyReceiptLatency), tone: 3),
                                  ConsoleChart.Series(name: "Server API p50", values: quantile(0.5, \.serverAPILatency), tone: 0),
                                  ConsoleChart.Series(name: "Server API p99", values: quantile(0.99, \.serverAPILatency), tone: 1)],
                         style: .lines, unit: "ms"),
            ConsoleChart(id: "apple-calls-\(window.rawValue)", title: "Calls to Apple, \(window.words)",
                         description: "Requests to verifyReceipt and the App Store Server API in each interval: answered, or failed (no answer, Apple's trouble, a rate limit, a refused token)",
                         labels: labels,
                         series: [ConsoleChart.Series(name: "answered", values: intervals.map { $0.appleCalls - $0.appleFailures }),
                                  ConsoleChart.Series(name: "failed", values: intervals.map(\.appleFailures), tone: 2)]),
            ConsoleChart(id: "breakers-\(window.rawValue)", title: "Circuit breakers to Apple, \(window.words)",
                         description: "Breakers (one per worker and Apple service) that were open, or half-open and probing, at some time in each interval; none means every worker was sending freely",
                         labels: labels,
                         series: [ConsoleChart.Series(name: "open", values: intervals.map(\.open.count), tone: 2),
                                  ConsoleChart.Series(name: "half-open", values: intervals.map { $0.halfOpen.subtracting($0.open).count }, tone: 1)]),
            ConsoleChart(id: "webhooks-\(window.rawValue)", title: "Webhook deliveries, \(window.words)",
                         description: "Attempts to deliver to your endpoints in each interval: delivered (2xx), or failed (another status, or no answer) and to be retried",
                         labels: labels,
                         series: [ConsoleChart.Series(name: "delivered", values: intervals.map { $0.webhookCalls - $0.webhookFailures }),
                                  ConsoleChart.Series(name: "failed", values: intervals.map(\.webhookFailures), tone: 2)]),
        ]
    }

    static func read(_ window: ConsoleCharts.Window, on pool: PostgresPool) async throws -> [ConsoleChart] {
        charts(try await ConsoleQueries.run(rows(window), on: pool), window: window)
    }
}
