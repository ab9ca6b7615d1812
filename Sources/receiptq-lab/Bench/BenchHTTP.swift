import AppStore
import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import HTTPClient
import ReceiptQueue   // Duration.seconds

/// `receiptq-lab bench http`: how cheaply one process keeps thousands of slow verifyReceipt calls in
/// flight. Fires `--requests` POSTs with `--concurrency` in flight at the fake App Store (3–6 s
/// per answer) and prints requests/s, CPU seconds per 1,000 requests and peak RSS.
///
/// The fake runs in a child process by default, so the CPU and memory figures are the client's
/// alone; `--in-process` runs it inside (figures then include the server), `--url` uses one
/// already running.
struct BenchHTTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "HTTP engine throughput against the fake App Store at 3–6 s per answer.")

    @Option(help: "Requests in flight at once.")
    var concurrency = 5_000

    @Option(help: "Requests in all (default: 3 × concurrency).")
    var requests: Int?

    @Option(help: "A running fake's production verifyReceipt URL (default: start one).")
    var url: String?

    @Option(help: "Latency of the fake this command starts.")
    var latency = "3s-6s"

    @Option(help: "Size of each receipt's base64, in characters (real ones are several KB).")
    var receiptBytes = 6_000

    @Option(help: "Total timeout of each request, in seconds.")
    var timeout = 30

    @Option(help: "HTTPClientConfiguration.maxBatchingDelay, in milliseconds.")
    var batchingDelayMs = 5

    @Flag(help: "Run the fake inside this process (its CPU and memory then count too).")
    var inProcess = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard concurrency > 0, concurrency <= 50_000 else { throw ValidationError("--concurrency must be 1…50000") }
        guard (requests ?? 1) > 0 else { throw ValidationError("--requests must be positive") }
        guard FakeDurationRange(parsing: latency) != nil else { throw ValidationError("--latency: expected e.g. 3s-6s") }
        guard (0...100).contains(batchingDelayMs) else { throw ValidationError("--batching-delay-ms must be 0…100") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.bench-http")
        let total = requests ?? concurrency * 3
        let fdLimit = FileDescriptorLimit.raise(to: concurrency * 2 + 1_024, logger: logger)
        let fake = try await BenchFake.start(url: url, latency: latency, inProcess: inProcess)
        let report = await measure(against: fake.productionURL, requests: total)
        await fake.stop()
        print(json ? report.json(fake: fake.location, openFilesLimit: fdLimit) : report.text(fake: fake.location, openFilesLimit: fdLimit))
    }

    private func measure(against target: String, requests total: Int) async -> BenchHTTPReport {
        let client = HTTPClient(configuration: .init(
            maxTotalConnections: concurrency + 64, maxIdleConnections: concurrency + 64,
            maxBatchingDelay: .milliseconds(batchingDelayMs)))
        let bodies = (0..<64).map { index in
            VerifyReceiptRequest(receiptData: FakeReceipt(bundleID: "com.example.bench", inApp: [
                FakeTransaction(transactionID: "bench-\(index)", productID: "com.example.bench.coins"),
            ]).padded(toBase64Length: receiptBytes).base64()).encodedBody()
        }
        let perRequestTimeout = Duration.seconds(timeout)

        let usageBefore = ResourceUsage.now()
        let clock = ContinuousClock()
        let started = clock.now
        // `concurrency` loops, each sending its share one request after another: exactly that
        // many in flight, and no task-group churn per request (removing a finished child from a
        // group of 5,000 costs time proportional to the group).
        let next = BenchCounter()
        var tally = BenchTally()
        await withTaskGroup(of: [BenchSample].self) { group in
            for _ in 0..<min(concurrency, total) {
                group.addTask {
                    var samples: [BenchSample] = []
                    while let index = next.take(below: total) {
                        let begin = clock.now
                        let outcome: String
                        do {
                            let response = try await client.post(
                                url: target, headers: ["Content-Type": "application/json"],
                                body: bodies[index % bodies.count], timeout: perRequestTimeout)
                            outcome = "http\(response.status)"
                        } catch {
                            outcome = "\(error)"
                        }
                        samples.append(BenchSample(latency: clock.now - begin, finishedAt: clock.now - started, outcome: outcome))
                    }
                    return samples
                }
            }
            for await samples in group {
                for sample in samples { tally.add(sample) }
            }
        }
        let wall = clock.now - started
        let usageAfter = ResourceUsage.now()
        await client.shutdown()

        return BenchHTTPReport(
            concurrency: concurrency, requests: total, wall: wall, tally: tally,
            cpuSeconds: usageAfter.cpuSeconds - usageBefore.cpuSeconds, peakRSSBytes: usageAfter.peakRSSBytes,
            receiptBytes: receiptBytes)
    }
}
