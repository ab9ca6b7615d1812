import FakeAppStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// A `receiptq worker` process as operators see it: its admin port, its metrics, its logs.
@Suite("Worker operations: metrics with HELP, probes, no secret in any output", .timeLimit(.minutes(3)))
struct WorkerOperationsTests {
    static func get(_ url: String) async -> (status: Int, body: String)? {
        guard let url = URL(string: url), let (data, response) = try? await URLSession.shared.data(from: url) else { return nil }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func everyMetricHasHelpAndTheWorkerSharedSecretNeverReachesLogsOrMetrics() async throws {
        let secret = "shared-secret-\(UUID().uuidString)"
        let e2e = try await EndToEnd.make(fake: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(10), upper: .milliseconds(20)), sharedSecret: secret))
        let port = try FreePort.pick()
        let worker = try e2e.spawnWorker(name: "ops", concurrency: 50, adminPort: port,
                                         environment: ["RECEIPTQ_SHARED_SECRET": secret, "RECEIPTQ_LOG_LEVEL": "trace"])
        defer { worker.kill() }
        try await e2e.pool.withConnection { try UpsertWebhookEndpoint.run(WebhookEndpoint(
            id: "backend", url: "http://127.0.0.1:1/hook", secrets: ["whsec_\(String(repeating: "s", count: 24))"]), on: $0) }
        _ = try await e2e.queue.enqueue((0..<20).map { NewJob(receiptData: EndToEnd.receipt([("ops\($0)", "coins100")]), transactionID: "ops\($0)", userID: "u") })
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)), "worker said: \(worker.stderr)")
        #expect(try await e2e.count("SELECT count(*) FROM receiptq.jobs WHERE state = 'granted'") == 20)   // the fake checked the secret

        #expect(await Self.get("http://127.0.0.1:\(port)/healthz")?.status == 200)
        #expect(await Self.get("http://127.0.0.1:\(port)/readyz")?.status == 200)
        let metrics = try #require(await Self.get("http://127.0.0.1:\(port)/metrics")).body
        let types = metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) }
        #expect(types.count >= 10)
        for name in types {
            // Every process reports its release and its database pools under shared names (docs/metrics.md).
            #expect(name.hasPrefix("receiptq_worker_") || name.hasPrefix("process_") || name.hasPrefix("receiptq_process_")
                    || name == "receiptq_build_info" || name.hasPrefix("receiptq_db_pool_"), "\(name)")
            #expect(metrics.contains("# HELP \(name) "), "\(name) has no HELP")
        }
        #expect(metrics.contains("receiptq_build_info{"))
        // The worker's pools, each by what it is for: the claims' pool ran the 20 jobs' work.
        #expect(metrics.contains("receiptq_db_pool_size{pool=\"jobs\"} 3"))
        #expect(metrics.contains("receiptq_db_pool_connections{pool=\"notifications\",state=\"idle\"}"))
        #expect(!metrics.contains("receiptq_db_pool_acquisitions_total{pool=\"jobs\"} 0\n"))
        #expect(metrics.contains("receiptq_worker_apple_request_duration_seconds_bucket{le=\"60.0\"}"))
        #expect(metrics.contains("receiptq_worker_verifications_total{outcome=\"granted\"} 20"))
        worker.kill(SIGTERM)
        #expect(await worker.wait(timeout: .seconds(30)) == 0)
        for output in [worker.stderr, worker.stdout, metrics] {
            #expect(!output.contains(secret))
            #expect(!output.contains("whsec_"))
        }
        await e2e.shutdown()
    }
}
