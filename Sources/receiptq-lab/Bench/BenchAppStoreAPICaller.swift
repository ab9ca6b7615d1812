import AppStoreServerAPI
import AppleSignedData
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import Worker

/// `receiptq-lab bench appstore-api-caller` (hidden): one worker-like process of `bench
/// appstore-api`. Calls Get Transaction Info as fast as the fleet's shared budget allows, from
/// `--start-at` for `--duration`, and prints one JSON line: answers per second by kind.
struct BenchAppStoreAPICaller: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore-api-caller",
        abstract: "Bench support: call Get Transaction Info through the fleet rate budget, print counts per second.",
        shouldDisplay: false)

    @OptionGroup var database: DatabaseOptions
    @Option var baseURL: String
    @Option var keyFile: String
    @Option var keyId = "BENCH"
    @Option var bundleId: String
    @Option var transactionId: String
    @Option(help: "The fleet's budget for Get Transaction Info, per second.") var rate = 50.0
    @Option(help: "Calls in flight in this process.") var concurrency = 8
    @Option(help: "UNIX milliseconds at which to begin (so every process starts together).") var startAt: Int64
    @Option var duration: Duration = .seconds(60)

    /// What one process saw, per second since `--start-at`.
    struct Report: Codable {
        var ok: [Int]
        var rateLimited: [Int]
        var failed: [Int]
        var lastError: String?
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-appstore-api", defaultLevel: .error)
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-bench-caller"), size: 2)
        let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 64, maxIdleConnections: 64))
        let key = try AppStoreConnectKey(pem: try String(contentsOfFile: keyFile, encoding: .utf8), keyId: keyId)
        let tokens = try AppStoreConnectTokenProvider(configuration: .init(key: key, issuerId: "bench-issuer", bundleId: bundleId))
        let limiter = FleetRateLimiter(
            store: PostgresRateBudgetStore(pool: pool),
            configuration: FleetRateLimiterConfiguration(limits: ServerAPIRateLimits(production: [.getTransactionInfo: rate])),
            clock: ContinuousClock())
        let client = try AppStoreServerAPIClient(
            environment: .production, httpClient: http, tokens: tokens,
            configuration: ServerAPIConfiguration(productionURL: baseURL, requestTimeout: .seconds(10)), gate: limiter)

        let start = Date(timeIntervalSince1970: Double(startAt) / 1_000)
        let seconds = Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up))
        if start.timeIntervalSinceNow > 0 { try await Task.sleep(for: .milliseconds(Int64(start.timeIntervalSinceNow * 1_000))) }
        let end = start.addingTimeInterval(Double(seconds))
        let transactionId = self.transactionId
        let report = await withTaskGroup(of: Report.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var report = Report(ok: .init(repeating: 0, count: seconds), rateLimited: .init(repeating: 0, count: seconds),
                                        failed: .init(repeating: 0, count: seconds))
                    while Date() < end {
                        var outcome: Int = 0   // 0 ok, 1 rate limited, 2 failed
                        do {
                            _ = try await client.getTransactionInfo(transactionId: transactionId)
                        } catch let error as ServerAPIError {
                            if case .rateLimited = error.kind { outcome = 1 } else { outcome = 2 }
                            report.lastError = error.description
                        } catch {
                            outcome = 2
                            report.lastError = String(describing: error)
                        }
                        let second = Int(Date().timeIntervalSince(start))
                        guard second >= 0, second < seconds else { continue }
                        switch outcome {
                        case 0: report.ok[second] += 1
                        case 1: report.rateLimited[second] += 1
                        default: report.failed[second] += 1
                        }
                    }
                    return report
                }
            }
            var total = Report(ok: .init(repeating: 0, count: seconds), rateLimited: .init(repeating: 0, count: seconds),
                               failed: .init(repeating: 0, count: seconds))
            for await part in group {
                for second in 0..<seconds {
                    total.ok[second] += part.ok[second]
                    total.rateLimited[second] += part.rateLimited[second]
                    total.failed[second] += part.failed[second]
                }
                total.lastError = total.lastError ?? part.lastError
            }
            return total
        }
        await http.shutdown()
        pool.shutdown()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
    }
}
