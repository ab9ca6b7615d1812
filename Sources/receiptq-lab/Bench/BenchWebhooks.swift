import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import WebhookReceiver

/// `receiptq-lab bench webhooks`: how fast events reach a backend. W `receiptq worker` processes
/// (deliverers only: the queue holds no receipts) push to a local receiver that checks every
/// signature, in a scratch database:
/// 1. throughput: N events of U users appended at once (as verdicts would), until all are
///    acknowledged — events delivered per second;
/// 2. latency when idle: one event at a time, from its commit to the receiver's acknowledgement.
struct BenchWebhooks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Events delivered per second to a local receiver, and commit-to-delivery latency when idle.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Events for the throughput run.") var events = 20_000
    @Option(help: "Distinct users (a user's events go one after another).") var users = 2_000
    @Option(help: "Worker processes delivering.") var workers = 2
    @Option(help: "Deliveries in flight per worker.") var concurrency = 1000
    @Option(help: "Single events for the idle latency run.") var samples = 200
    @Flag(help: "Keep the scratch database for inspection.") var keepDatabase = false
    @OptionGroup var recording: BenchRecording

    func validate() throws {
        guard events > 0, users > 0, (1...8).contains(workers), concurrency > 0, samples > 0 else {
            throw ValidationError("--events, --users, --concurrency and --samples must be positive, --workers 1…8")
        }
        try recording.validate(json: false)
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchwebhooks", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "webhooks", migrations: try migrations.load())
        let pool = PostgresPool(configuration: scratch.configuration, size: 4)
        let secret = "whsec_bench_0123456789abcdef"
        let receiver = try await WebhookReceiver.start(secrets: [secret])
        var processes: [SpawnedProcess] = []
        defer { processes.forEach { $0.terminate() } }
        let before = try await recording.yardstick(scratch.configuration)
        try await pool.withConnection {
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "bench", url: receiver.url, secrets: [secret]), on: $0)
        }

        // 1. Throughput: a backlog of events committed before any worker runs, then the workers
        // start and the clock with them (their start-up is counted). A clock started after
        // appending while workers ran measured only the tail (20,000 "in 0.2 s", 87k events/s).
        let appendStart = ContinuousClock.now
        let ids = try await appendEvents(pool: pool, count: events, users: users)
        let appended = ContinuousClock.now - appendStart
        let workerURL = try await scratch.connectionString(as: .worker)   // as production: the worker's role only
        let postgresBefore = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name)
        let started = ContinuousClock.now
        for index in 0..<workers {
            processes.append(try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: [
                "worker", "--database-url", workerURL, "--name", "bench-webhooks-\(index)", "--concurrency", "1",
                "--webhook-concurrency", "\(concurrency)", "--bundle-ids", "com.example.bench", "--app-apple-id", "1234567890",
                "--apple-production-url", "http://127.0.0.1:9/verifyReceipt", "--apple-sandbox-url", "http://127.0.0.1:9/verifyReceipt",
            ], environment: ProcessInfo.processInfo.environment.merging(["RECEIPTQ_LOG_LEVEL": "warning"]) { $1 }))
        }
        let deadline = started + .seconds(600)
        while Set(receiver.acknowledged.map(\.id)).count < ids.count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let acknowledged = Set(receiver.acknowledged.map(\.id)).count
        let seconds = (receiver.acknowledged.map(\.receivedAt).max() ?? .now) - started
        // CPU per event delivered: the workers' (start-up included) and the scratch database's.
        let workerCPU = processes.reduce(0.0) { $0 + ProcessUsage.read(pid: $1.pid).cpuSeconds } / Double(max(acknowledged, 1)) * 1000
        let postgresCPU = postgresBefore.flatMap { before in
            CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name).map { ($0 - before) / Double(max(acknowledged, 1)) * 1000 }
        }

        // 2. Idle latency: commit, then wait for the acknowledgement, one at a time.
        var latencies: [Double] = []
        for _ in 0..<samples {
            let before = receiver.acknowledged.count
            _ = try await appendEvents(pool: pool, count: 1, users: 1)
            let committed = ContinuousClock.now
            while receiver.acknowledged.count == before && ContinuousClock.now - committed < .seconds(10) {
                try await Task.sleep(for: .milliseconds(1))
            }
            if let last = receiver.acknowledged.last, receiver.acknowledged.count > before {
                latencies.append(((last.receivedAt - committed).seconds * 1000).rounded())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        let report = """
            bench webhooks: \(workers) worker processes × \(concurrency) deliveries in flight, receiver on loopback checking signatures
              throughput   a backlog of \(ids.count) events of \(users) users (appended in \(String(format: "%.2f", appended.seconds)) s, \
            500 a transaction, no worker running): \(acknowledged) acknowledged \(String(format: "%.2f", seconds.seconds)) s after the \
            workers started, \(Int(Double(acknowledged) / max(seconds.seconds, 0.001))) events/s; \(receiver.refusedSignatures) signatures refused
                           CPU ms per event: workers \(String(format: "%.3f", workerCPU))\(postgresCPU.map { ", PostgreSQL " + String(format: "%.3f", $0) } ?? "")
              idle latency commit → acknowledged, \(latencies.count) events one at a time: p50 \(Int(percentile(0.5))) ms, \
            p99 \(Int(percentile(0.99))) ms, max \(Int(latencies.last ?? 0)) ms
            """
        for process in processes { process.terminate() }
        for process in processes { _ = await process.wait(timeout: .seconds(20)) }
        processes.removeAll()
        await receiver.stop()
        let yardstick = try await recording.closing(before, on: scratch.configuration)
        pool.shutdown()
        await scratch.drop(keep: keepDatabase)
        try recording.finish(bench: "webhooks", report: report, yardstick: yardstick)
    }

    /// `count` finished jobs with their events, as workers leave them, in transactions of 500.
    /// Inserted finished: the bench's workers must find nothing to claim.
    private func appendEvents(pool: PostgresPool, count: Int, users: Int) async throws -> [Int64] {
        let prefix = String(UUID().uuidString.prefix(8))
        var all: [Int64] = []
        for chunk in stride(from: 0, to: count, by: 500) {
            let numbers = Array(chunk..<min(chunk + 500, count))
            let ids = try await pool.transaction { connection -> [Int64] in
                let ids = try connection.query("""
                    INSERT INTO receiptq.jobs (receipt_data, transaction_id, user_id, state, outcome_reason, finished_at)
                    SELECT 'r-' || $1 || '-' || n, 't' || n, 'user-' || (n % $2), 'rejected', 'bench', now() FROM unnest($3::int[]) AS n
                    RETURNING id
                    """, [prefix, users, numbers]).map { try $0.decode("id", as: Int64.self) }
                try AppendJobEvents.run(jobs: ids, on: connection)
                return ids
            }
            all += ids
        }
        return all
    }
}
