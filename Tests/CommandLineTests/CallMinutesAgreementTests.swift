import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The console's charts of calls out are only as good as the per-minute sums the processes write
/// to `receiptq.call_minutes`. Here the real binaries, each under its own login (the worker's and
/// the scheduler's), take a load of every kind; the sums in the table must then agree with what the
/// same worker counted in its Prometheus metrics, call for call.
@Suite("Calls out, per minute: what the worker writes agrees with its own metrics")
struct CallMinutesAgreementTests {
    @Test("verifyReceipt and Server API calls, and webhook attempts, are in receiptq.call_minutes as the worker's metrics count them")
    func theSumsAgreeWithTheMetrics() async throws {
        let stack = try await ObservedStack.start()
        do {
            try await MetricsCoverageTests.load(stack)
            var last = ""
            let agreed = await eventually(timeout: .seconds(90), every: .milliseconds(500)) {
                let samples = MetricsCoverageTests.samples(await stack.metrics("worker"))
                let answered = Int(samples["receiptq_worker_apple_request_duration_seconds_count"] ?? 0)
                let serverAPI = Int(samples["receiptq_server_api_requests_total"] ?? 0)
                guard let rows = try? await stack.fixture.owner.query("""
                    SELECT target, sum(calls)::bigint AS calls, sum(failures)::bigint AS failures FROM receiptq.call_minutes
                    WHERE process = 'observed-worker' GROUP BY target
                    """) else { return false }
                var calls: [String: Int] = [:], failures: [String: Int] = [:]
                for row in rows {
                    let target = (try? row.decode("target", as: String.self)) ?? ""
                    calls[target] = try? row.decode("calls", as: Int.self)
                    failures[target] = try? row.decode("failures", as: Int.self)
                }
                let verifyReceipt = (calls["verify_receipt.production"] ?? 0) + (calls["verify_receipt.sandbox"] ?? 0)
                let server = (calls["server_api.production"] ?? 0) + (calls["server_api.sandbox"] ?? 0)
                last = "metrics: verifyReceipt \(answered), Server API \(serverAPI); table: \(calls), failures \(failures)"
                return answered >= 3 && verifyReceipt == answered && serverAPI >= 2 && server == serverAPI
                    && (failures["server_api.production"] ?? 0) >= 1          // the fake's 429 for the first lookup
                    && (calls["webhooks"] ?? 0) >= 1 && failures["webhooks"] == 0
            }
            #expect(agreed, "\(last)")
            let minutes = try await stack.fixture.owner.query(
                "SELECT count(*) AS n FROM receiptq.call_minutes WHERE minute <> date_trunc('minute', minute) OR cardinality(latency_buckets) <> 23")
            #expect(try minutes[0].decode("n", as: Int.self) == 0)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }
}
