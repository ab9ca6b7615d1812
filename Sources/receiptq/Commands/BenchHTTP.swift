import AppStore
import ArgumentParser
import FakeAppStore
import Foundation
import HTTPClient

/// `receiptq bench http`: how cheaply one process keeps thousands of slow verifyReceipt calls in
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

    @Option(help: "The engine's pause between loop turns when busy, in ms (HTTPClientConfiguration.busyLoopInterval).")
    var loopIntervalMs = 5

    @Flag(help: "Run the fake inside this process (its CPU and memory then count too).")
    var inProcess = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard concurrency > 0, concurrency <= 50_000 else { throw ValidationError("--concurrency must be 1…50000") }
        guard (requests ?? 1) > 0 else { throw ValidationError("--requests must be positive") }
        guard FakeDurationRange(parsing: latency) != nil else { throw ValidationError("--latency: expected e.g. 3s-6s") }
        guard (0...100).contains(loopIntervalMs) else { throw ValidationError("--loop-interval-ms must be 0…100") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.bench-http")
        let total = requests ?? concurrency * 3
        let fdLimit = FileDescriptorLimit.raise(to: concurrency * 2 + 1_024, logger: logger)
        let fake = try await BenchFake.start(url: url, latency: latency, inProcess: inProcess)
        defer { fake.stop() }

        let client = HTTPClient(configuration: .init(
            maxTotalConnections: concurrency + 64, maxIdleConnections: concurrency + 64,
            busyLoopInterval: .milliseconds(loopIntervalMs)))
        let bodies = (0..<64).map { index in
            VerifyReceiptRequest(receiptData: FakeReceipt(bundleID: "com.example.bench", inApp: [
                FakeTransaction(transactionID: "bench-\(index)", productID: "com.example.bench.coins"),
            ]).padded(toBase64Length: receiptBytes).base64()).encodedBody()
        }
        let target = fake.productionURL
        let perRequestTimeout = Duration.seconds(timeout)

        let usageBefore = ResourceUsage.now()
        let clock = ContinuousClock()
        let started = clock.now
        var tally = BenchTally()
        await withTaskGroup(of: BenchSample.self) { group in
            var submitted = 0
            func submit() {
                let body = bodies[submitted % bodies.count]
                submitted += 1
                group.addTask {
                    let begin = clock.now
                    do {
                        let response = try await client.post(
                            url: target, headers: ["Content-Type": "application/json"], body: body, timeout: perRequestTimeout)
                        return BenchSample(latency: clock.now - begin, finishedAt: clock.now - started, outcome: "http\(response.status)")
                    } catch {
                        return BenchSample(latency: clock.now - begin, finishedAt: clock.now - started, outcome: "\(error)")
                    }
                }
            }
            while submitted < min(concurrency, total) { submit() }
            for await sample in group {
                tally.add(sample)
                if submitted < total { submit() }
            }
        }
        let wall = clock.now - started
        let usageAfter = ResourceUsage.now()
        await client.shutdown()

        let report = BenchHTTPReport(
            concurrency: concurrency, requests: total, wall: wall, tally: tally,
            cpuSeconds: usageAfter.cpuSeconds - usageBefore.cpuSeconds, peakRSSBytes: usageAfter.peakRSSBytes,
            fakeLocation: fake.location, openFilesLimit: fdLimit, receiptBytes: receiptBytes)
        print(json ? report.json() : report.text())
    }
}
