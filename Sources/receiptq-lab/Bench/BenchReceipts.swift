import AppleSignedData
import AppleTestPKI
import AppStore
import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import ServiceLifecycle
import Worker
import X509

/// `receiptq-lab bench receipts`: how many PKCS #7 app receipts one core verifies per second —
/// warm (the signing chain cached, the steady state: Apple signs with a handful of certificates),
/// cold (a new verifier each time, the chain validated afresh) and, as the baseline of the same
/// run, parsing alone (no signature, no chain) — in Apple's shape (RSA-2048, BER, one purchase).
/// Then, end to end: receipts with garbage mixed in through a worker with the local check and
/// the fake App Store, counting the fake's requests: Apple requests per garbage receipt.
struct BenchReceipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "App receipts verified locally per second per core (warm, cold, parse-only baseline); e2e: Apple requests per garbage receipt.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions
    @Option(help: "Verifications with a warm chain cache.") var warm = 20_000
    @Option(help: "Verifications with a new verifier each.") var cold = 1_000
    @Option(help: "Purchases per receipt.") var purchases = 1
    @Option(help: "End to end: receipts through a worker (0: skip the e2e part, no database needed).") var e2e = 2_000
    @Option(help: "End to end: share of garbage (not receipts, the fake's JSON, other apps', forged, tampered).") var garbage = 0.5

    func validate() throws {
        guard warm > 0, cold > 0, purchases >= 0, e2e >= 0, (0...1).contains(garbage) else {
            throw ValidationError("--warm and --cold positive, --purchases and --e2e not negative, --garbage 0…1")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-receipts", defaultLevel: .error)
        let bundleId = "com.example.bench"
        let pki = try RSATestPKI(names: .appleReceiptLike)
        let receipts = try (0..<100).map { index in
            try FakeReceipt(bundleID: bundleId, inApp: (0..<purchases).map { purchase in
                FakeTransaction(transactionID: "\(2_000_000_000_000 + index * 1_000 + purchase)", productID: "com.example.coins")
            }).pkcs7(signer: pki.receiptSigner)
        }
        let configuration = AppReceiptVerifier.Configuration(trustedRoots: [pki.root], bundleIds: [bundleId], environments: [.production])
        let verifier = try AppReceiptVerifier(configuration: configuration)
        _ = try await verifier.verify(base64: receipts[0])
        let parse = try await BenchJWS.time(warm) { index in _ = try UnverifiedAppReceipt(base64: receipts[index % receipts.count]) }
        let warmed = try await BenchJWS.time(warm) { index in _ = try await verifier.verify(base64: receipts[index % receipts.count]) }
        let coldRun = try await BenchJWS.time(cold) { index in
            _ = try await AppReceiptVerifier(configuration: configuration).verify(base64: receipts[index % receipts.count])
        }
        print("""
            bench receipts: PKCS#7 app receipts as Apple makes them (RSA-2048, BER, \(purchases) purchase(s), leaf → WWDR → root), one task
              warm chain cache: \(Int(warmed.perCPUSecond).formatted()) verified per CPU second (\(Int(warmed.perWallSecond).formatted())/s wall); goal ≥ 2,000: \(warmed.perCPUSecond >= 2_000 ? "met" : "NOT met")
              cold (chain validated each time): \(Int(coldRun.perCPUSecond).formatted()) per CPU second (\(Int(coldRun.perWallSecond).formatted())/s wall)
              baseline, parse only (no signature, no chain): \(Int(parse.perCPUSecond).formatted()) per CPU second
              ratios: warm/cold \(String(format: "%.1f", warmed.perCPUSecond / coldRun.perCPUSecond))×, warm/parse-only \(String(format: "%.2f", warmed.perCPUSecond / parse.perCPUSecond))
            """)
        if e2e > 0 { try await endToEnd(bundleId: bundleId) }
    }

    /// Receipts through an in-process worker with the local check, against the fake App Store in
    /// this process (latency 50–100 ms); garbage must cost Apple nothing.
    private func endToEnd(bundleId: String) async throws {
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "receipts", migrations: try migrations.load())
        let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(50), upper: .milliseconds(100)),
            serverAPI: FakeServerAPIConfiguration(bundleId: bundleId)))
        let attacker = try TestPKI()
        var jobs: [NewJob] = []
        var garbageCount = 0
        for index in 0..<e2e {
            let id = "\(3_000_000_000_000 + index)"
            let receipt = FakeReceipt(bundleID: bundleId, inApp: [FakeTransaction(transactionID: id, productID: "com.example.coins")])
            let data: String
            if Double(index % 100) < garbage * 100 {
                garbageCount += 1
                switch index % 5 {
                case 0: data = Data("not a receipt \(index)".utf8).base64EncodedString()
                case 1: data = receipt.base64()   // the fake's JSON format: no app receipt
                case 2: data = try fake.serverAPI.mintReceipt(FakeReceipt(bundleID: "com.other.app", inApp: receipt.inApp))
                case 3: data = try receipt.pkcs7(signer: attacker.receiptSigner)
                default:
                    // The product id changed after signing: the signature no longer covers the content.
                    var bytes = Array(Data(base64Encoded: try fake.serverAPI.mintReceipt(receipt))!)
                    if let at = bytes.firstRange(of: Array("com.example.coins".utf8))?.lowerBound { bytes[at] = UInt8(ascii: "C") }
                    data = Data(bytes).base64EncodedString()
                }
            } else {
                data = try fake.serverAPI.mintReceipt(receipt)
            }
            jobs.append(NewJob(receiptData: data, transactionID: id, userID: "u\(index)"))
        }
        let pool = scratch.pool(size: 4)
        let workerDatabase = try await scratch.configuration(as: .worker)
        let workerPool = PostgresPool(configuration: workerDatabase, size: 3)
        var settings = WorkerConfiguration(name: "bench-receipts", bundleIDs: [bundleId],
                                           apple: VerifyReceiptClientConfiguration(productionURL: fake.productionURL, sandboxURL: fake.sandboxURL))
        settings.concurrency = 500
        settings.pollInterval = .milliseconds(200)
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(10)))
        let local = try AppReceiptVerifier(configuration: .init(trustedRoots: [fake.serverAPI.signer.pki.root], bundleIds: [bundleId],
                                                                environments: [.production, .sandbox]))
        var logger = Logger(label: "bench-receipts")
        logger.logLevel = .error
        let worker = ReceiptWorker(configuration: settings, pool: workerPool, database: workerDatabase,
                                   verifier: VerifyReceiptClient(httpClient: http, configuration: settings.apple), localReceipts: local, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [worker], logger: logger))
        let started = ContinuousClock.now
        let task = Task { try await group.run() }
        _ = try await JobQueue(pool: pool).enqueue(jobs)
        // Garbage asked of Apple would come back 21002 and wait out retry backoff: the deadline shows it.
        let deadline = started + .seconds(max(60, e2e / 20))
        while try await pool.query("SELECT coalesce(sum(jobs), 0)::bigint AS n FROM receiptq.queue_depth")[0].decode("n", as: Int.self) > 0,
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let elapsed = ContinuousClock.now - started
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        let states = try await pool.query("SELECT state::text AS state, count(*)::bigint AS n FROM receiptq.jobs GROUP BY state ORDER BY state")
            .map { "\(try $0.decode("state", as: String.self)) \(try $0.decode("n", as: Int.self))" }
        let requests = fake.stats.snapshot().requests
        let genuine = e2e - garbageCount
        print("""
            bench receipts e2e: \(e2e) receipts (\(garbageCount) garbage: not receipts, the fake's JSON, other apps', forged, tampered) through one worker with the local check
              jobs: \(states.joined(separator: ", ")) in \(elapsed)
              Apple (fake) requests: \(requests) for \(genuine) genuine receipts; per garbage receipt: \(garbageCount == 0 ? "n/a" : String(format: "%.3f", Double(max(0, requests - genuine)) / Double(garbageCount)))
            """)
        pool.shutdown()
        workerPool.shutdown()
        await http.shutdown()
        await fake.stop()
        await scratch.drop()
    }
}
