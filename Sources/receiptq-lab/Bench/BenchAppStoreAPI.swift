import AppStoreServerAPI
import ArgumentParser
import CommandSupport
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import PostgresTesting
import ReceiptQueueTesting

/// `receiptq-lab bench appstore-api`: does a fleet sharing its App Store Server API budget through
/// PostgreSQL use the whole budget without 429s? Starts the fake App Store (a `receiptq` child)
/// limited to `--rate` requests per second on Get Transaction Info, then `--processes` caller
/// processes (`appstore-api-caller`), each with its own `FleetRateLimiter` on one scratch database,
/// each calling as fast as the budget allows for `--duration`. Prints answers per second and 429s.
/// Goal: at least 94% of the budget (47/s of 50) and no 429 after the first second.
struct BenchAppStoreAPI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore-api",
        abstract: "Several processes share the App Store Server API budget through PostgreSQL against the fake's rate limit.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Caller processes.") var processes = 3
    @Option(help: "Calls in flight per process.") var concurrency = 8
    @Option(help: "The fake's limit on Get Transaction Info, and the fleet's budget, per second.") var rate = 50.0
    @Option(help: "How long the callers call, e.g. 60s (10s for a quick look).") var duration: Duration = .seconds(60)
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard (1...32).contains(processes) else { throw ValidationError("--processes must be 1…32") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1…256") }
        guard rate > 0, rate <= 10_000 else { throw ValidationError("--rate must be within (0, 10000]") }
        guard duration >= .seconds(2) else { throw ValidationError("--duration must be at least 2s") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-appstore-api", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "appstoreapi", migrations: try migrations.load())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keyFile = folder.appendingPathComponent("AuthKey_BENCH.p8").path
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw BenchError("cannot write the bench's key to \(keyFile)")
        }
        let fake = try BenchServerAPIFake.start(keyFile: keyFile, rate: rate)
        let http = HTTPClient()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let transactionId = try await fake.buy(http: http)
            let outcome = try await measure(fake: fake, scratch: scratch, keyFile: keyFile, transactionId: transactionId)
            let fakeCounts = try await fake.counts(http: http)
            print(json ? outcome.json(fakeCounts: fakeCounts) : outcome.text(fakeCounts: fakeCounts))
            await http.shutdown()
            fake.stop()
            await scratch.drop()
        } catch {
            await http.shutdown()
            fake.stop()
            await scratch.drop()
            throw error
        }
    }

    private func measure(fake: BenchServerAPIFake, scratch: ScratchDatabase, keyFile: String, transactionId: String) async throws -> BenchAppStoreAPIOutcome {
        let startAt = Int64((Date().timeIntervalSince1970 + 2) * 1_000)   // time for every process to connect first
        let workerURL = try await scratch.connectionString(as: .worker)   // the rate budget as workers take it
        let children = try (0..<processes).map { _ in
            try ChildProcess(ReceiptQBinary.lab, arguments: [
                "bench", "appstore-api-caller", "--base-url", fake.productionURL, "--key-file", keyFile,
                "--bundle-id", BenchServerAPIFake.bundleId, "--transaction-id", transactionId, "--rate", String(rate),
                "--concurrency", String(concurrency), "--start-at", String(startAt), "--duration", duration.argumentText,
            ], environment: ["DATABASE_URL": workerURL])
        }
        var reports: [BenchAppStoreAPICaller.Report] = []
        for child in children {
            let status = await child.wait(timeout: duration + .seconds(60))
            guard status == 0, let line = child.stdout.split(separator: "\n").last,
                  let report = try? JSONDecoder().decode(BenchAppStoreAPICaller.Report.self, from: Data(line.utf8))
            else { throw BenchError("a caller process failed (status \(status.map(String.init) ?? "timeout")): \(child.stderr.suffix(500))") }
            reports.append(report)
        }
        return BenchAppStoreAPIOutcome(processes: processes, concurrency: concurrency, rate: rate, reports: reports)
    }
}
