import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab bench e2e`: the whole pipeline on this machine. Enqueues N receipts into a scratch
/// database, runs W `receiptq worker` processes against the fake App Store (in this process,
/// 3–6 s per answer like Apple), and measures receipts/s from the first enqueue to the last
/// terminal outcome, time to grant (p50/p99), each worker's peak RSS and CPU per 1,000
/// verifications. `--kind signed`: StoreKit 2 signed transactions instead (see `SignedE2E`).
struct BenchE2E: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e2e", abstract: "Receipts (or --kind signed: StoreKit 2 signed transactions) through enqueue → workers → grants.")

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case receipt, signed
    }

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "receipt: legacy receipts through the fake's verifyReceipt; signed: StoreKit 2 signed transactions, verified locally.")
    var kind: Kind = .receipt
    @Option(help: "Receipts (or signed transactions) to verify.") var receipts = 20_000
    @Option(help: "signed: transactions offered per second, open loop (0: all at once).") var rate = 5_000
    @Option(help: "Worker processes.") var workers = 2
    @Option(help: "Verifications in flight per worker.") var concurrency = 4000
    @Option(help: "Fake App Store latency range.") var latency = "3s-6s"
    @Option(help: "Size of each receipt's base64, in bytes (real receipts are several KiB).") var receiptBytes = 6144
    @Option(help: "Receipts verified before the clock starts, so workers are past their breaker's slow start (0: measure a cold start).") var warmUp = 100
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Keep the scratch database for inspection.") var keepDatabase = false
    @OptionGroup var recording: BenchRecording

    func validate() throws {
        guard receipts > 0 else { throw ValidationError("--receipts must be positive") }
        guard warmUp >= 0 else { throw ValidationError("--warm-up must be 0 or more") }
        guard (1...16).contains(workers) else { throw ValidationError("--workers must be 1…16") }
        guard (1...20_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1…20000") }
        guard FakeDurationRange(parsing: latency) != nil else { throw ValidationError("--latency must look like 3s-6s") }
        guard (0...100_000).contains(rate) else { throw ValidationError("--rate must be 0…100000") }
        try recording.validate(json: json)
    }

    struct Result: Codable {
        var receipts: Int, workers: Int, concurrencyPerWorker: Int
        var seconds: Double
        var receiptsPerSecond: Double
        /// Receipts finished between the 10th and the 90th percentile of finish times, per
        /// second: the sustained rate, without the first Apple round trip (nothing can finish
        /// in the first 3 s) and the tail of the last answers.
        var steadyReceiptsPerSecond: Double
        var timeToGrantP50Seconds: Double, timeToGrantP99Seconds: Double
        var peakRSSMegabytesPerWorker: [Double]
        var cpuSecondsPer1000Verifications: Double
        /// The scratch database's backends, per receipt: enqueue, claim, verdict and grant (nil without /proc).
        var postgresCPUMillisecondsPerReceipt: Double?
        var appleRequests: Int
        var states: [String: Int]
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "e2e", migrations: try migrations.load())
        do {
            let before = json ? nil : try await recording.yardstick(scratch.configuration)
            if kind == .signed {
                let result = try await SignedE2E(transactions: receipts, rate: rate, workers: workers, warmUp: max(warmUp, 500)).measure(scratch)
                let yardstick = try await recording.closing(before, on: scratch.configuration)
                await scratch.drop(keep: keepDatabase)
                if json { print(Self.json(result)) } else { try recording.finish(bench: "e2e-signed", report: SignedE2E.report(result), yardstick: yardstick) }
                return
            }
            let result = try await measure(scratch)
            let yardstick = try await recording.closing(before, on: scratch.configuration)
            await scratch.drop(keep: keepDatabase)
            if json { print(Self.json(result)) } else { try recording.finish(bench: "e2e-receipts", report: report(result), yardstick: yardstick) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            await scratch.drop(keep: keepDatabase)
            throw error
        }
    }

    func measure(_ scratch: ScratchDatabase) async throws -> Result {
        // The fake runs in a process of its own, as Apple would be elsewhere: in this process it
        // would compete with the bench's own bookkeeping.
        let fake = try await BenchFake.start(url: nil, latency: latency, inProcess: false)
        let pool = PostgresPool(configuration: scratch.configuration, size: 3)
        defer { pool.shutdown() }
        let queue = JobQueue(pool: pool)
        let workerURL = try await scratch.connectionString(as: .worker)   // as production: the worker's role only
        let children = try (0..<workers).map { index in try spawnWorker(index: index, databaseURL: workerURL, fake: fake) }
        defer { children.forEach { if $0.isRunning { $0.terminate() } } }
        // The scheduler puts verifications that outlasted their timeout (timed_out) back, as in
        // production: without it, one such job among 20,000 kept the drain waiting for ever.
        let scheduler = try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: [
            "scheduler", "--database-url", try await scratch.connectionString(as: .scheduler), "--interval", "1s",
        ], environment: ProcessInfo.processInfo.environment.merging(["RECEIPTQ_LOG_LEVEL": "warning"]) { $1 })
        defer { if scheduler.isRunning { scheduler.terminate() } }

        // Minting is the client's work, not ours: done before the clock starts.
        func jobs(_ prefix: String, _ count: Int) -> [[NewJob]] {
            stride(from: 0, to: count, by: 500).map { chunk in
                (chunk..<min(chunk + 500, count)).map { n in
                    let receipt = FakeReceipt(bundleID: "com.example.bench", inApp: [FakeTransaction(transactionID: "\(prefix)\(n)", productID: "coins100")])
                    return NewJob(receiptData: receipt.padded(toBase64Length: receiptBytes).base64(), transactionID: "\(prefix)\(n)", userID: "u\(n % 1000)")
                }
            }
        }
        func drain() async throws {
            // queue_depth reads partial indexes only: polling must not compete with the workers.
            while try await pool.query("SELECT coalesce(sum(jobs), 0)::bigint AS left FROM receiptq.queue_depth")[0].decode("left", as: Int.self) > 0 {
                guard children.allSatisfy(\.isRunning) else { throw BenchError("a worker process exited early") }
                guard scheduler.isRunning else { throw BenchError("the scheduler exited early") }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        // Long-running workers are past their breaker's slow start (one Apple round trip with
        // at most 20 requests out); a warm-up puts these there before the clock starts.
        for batch in jobs("w", warmUp) { _ = try await queue.enqueue(batch) }
        try await drain()
        let warmUpRequests = try await fake.requestCount()
        let batches = jobs("b", receipts)
        // CPU counted from here: the warm-up and the workers' start are not the receipts'.
        let warmUsage = children.map { ProcessUsage.read(pid: $0.pid) }
        let postgresBefore = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name)
        let started = ContinuousClock.now
        // As the API's group commit would: a few multi-row statements in flight at once.
        try await forEachConcurrently(batches, width: 2) { _ = try await queue.enqueue($0) }
        try await drain()
        let seconds = (ContinuousClock.now - started).seconds
        let usage = children.map { ProcessUsage.read(pid: $0.pid) }
        let postgresAfter = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name)
        for child in children { child.terminate() }
        for child in children { child.waitUntilExit() }
        let appleRequests = try await fake.requestCount() - warmUpRequests
        await fake.stop()

        let times = try await pool.query("""
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at)) AS p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at)) AS p99,
                   percentile_cont(0.1) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at)) AS f10,
                   percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at)) AS f90
            FROM receiptq.jobs WHERE state = 'granted' AND transaction_id LIKE 'b%'
            """)[0]
        let f10: Double = try times.decodeIfPresent("f10") ?? 0, f90: Double = try times.decodeIfPresent("f90") ?? 0
        var states: [String: Int] = [:]
        for row in try await pool.query("SELECT state, count(*) AS n FROM receiptq.jobs WHERE transaction_id LIKE 'b%' GROUP BY state") {
            states[try row.decode("state")] = try row.decode("n")
        }
        let cpu = zip(warmUsage, usage).reduce(0) { $0 + $1.1.cpuSeconds - $1.0.cpuSeconds }
        let postgres = postgresBefore.flatMap { before in postgresAfter.map { ($0 - before) / Double(receipts) * 1000 } }
        return Result(receipts: receipts, workers: workers, concurrencyPerWorker: concurrency, seconds: seconds,
                      receiptsPerSecond: Double(receipts) / seconds,
                      steadyReceiptsPerSecond: f90 > f10 ? 0.8 * Double(states["granted"] ?? 0) / (f90 - f10) : 0,
                      timeToGrantP50Seconds: try times.decodeIfPresent("p50") ?? 0, timeToGrantP99Seconds: try times.decodeIfPresent("p99") ?? 0,
                      peakRSSMegabytesPerWorker: usage.map { $0.peakRSSMegabytes }, cpuSecondsPer1000Verifications: cpu / Double(receipts) * 1000,
                      postgresCPUMillisecondsPerReceipt: postgres, appleRequests: appleRequests, states: states)
    }

    func spawnWorker(index: Int, databaseURL: String, fake: BenchFake) throws -> SpawnedProcess {
        let arguments = ["worker", "--database-url", databaseURL, "--name", "bench-\(index)",
                         "--concurrency", "\(concurrency)", "--bundle-ids", "com.example.bench", "--app-apple-id", "1234567890", "--receipt-check", "off",
                         "--apple-production-url", fake.productionURL,
                         "--apple-sandbox-url", fake.productionURL.replacingOccurrences(of: "/production/", with: "/sandbox/")]
        var environment = ProcessInfo.processInfo.environment
        environment["RECEIPTQ_LOG_LEVEL"] = "warning"
        return try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: arguments, environment: environment)
    }

    static func json<T: Encodable>(_ result: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(result)) ?? Data(), as: UTF8.self)
    }

    func report(_ result: Result) -> String {
        """
            bench e2e: \(result.receipts) receipts, \(result.workers) workers × \(result.concurrencyPerWorker) in flight, fake Apple at \(latency)
              receipts/s (enqueue → terminal)   \(Int(result.receiptsPerSecond)) overall (\(String(format: "%.1f", result.seconds)) s), \(Int(result.steadyReceiptsPerSecond)) steady (p10–p90 finishes)
              time to grant p50 / p99           \(String(format: "%.2f", result.timeToGrantP50Seconds)) s / \(String(format: "%.2f", result.timeToGrantP99Seconds)) s
              peak RSS per worker               \(result.peakRSSMegabytesPerWorker.map { "\(Int($0)) MB" }.joined(separator: ", "))
              CPU per 1,000 verifications       \(String(format: "%.2f", result.cpuSecondsPer1000Verifications)) s (workers only)
              PostgreSQL CPU per receipt        \(result.postgresCPUMillisecondsPerReceipt.map { String(format: "%.3f", $0) + " ms" } ?? "unknown (no /proc)")
              Apple requests                    \(result.appleRequests)
              outcomes                          \(result.states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            """
    }
}

/// CPU time and peak memory of a running child, read from /proc before it exits.
struct ProcessUsage {
    var cpuSeconds: Double
    var peakRSSMegabytes: Double

    static func read(pid: Int32) -> ProcessUsage {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var cpu = 0.0, rss = 0.0
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) { cpu = (user + system) / ticks }
        }
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") {
            rss = kilobytes / 1024
        }
        return ProcessUsage(cpuSeconds: cpu, peakRSSMegabytes: rss)
    }
}
