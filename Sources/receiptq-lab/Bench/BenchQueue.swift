import ArgumentParser
import BenchHistory
import CommandSupport
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab bench queue`: how fast the queue itself moves no-op jobs, against a baseline of one
/// plain single-row UPDATE + commit per job measured in the same run on the same server. Runs
/// in a scratch database it creates and drops (the role needs CREATEDB).
struct BenchQueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Enqueue N no-op jobs, drain them with K claimers (claim B, complete B), compare with a per-row UPDATE baseline.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Jobs to enqueue and drain.")
    var jobs = 100_000

    @Option(help: "Concurrent claimers (each with its own connection).")
    var claimers = 4

    @Option(help: "Jobs per enqueue statement, per claim, and per completion.")
    var batch = 1000

    @Option(help: "Jobs updated one by one for the baseline.")
    var baselineJobs = 20_000

    @Option(help: ArgumentHelp("Exit 1 when drain / baseline falls under this ratio (0: never). The test command's guard of the queue core.",
                               discussion: "A ratio, not a rate: both halves run on the same server in the same minute, so load on the machine moves them together."))
    var failUnder = 0.0

    @Flag(help: "Print one JSON object.")
    var json = false

    @Flag(help: "Keep the scratch database for inspection.")
    var keepDatabase = false

    @OptionGroup var recording: BenchRecording

    func validate() throws {
        guard jobs > 0 else { throw ValidationError("--jobs must be positive") }
        guard claimers > 0, claimers <= 64 else { throw ValidationError("--claimers must be 1…64") }
        guard batch > 0, batch <= 10_000 else { throw ValidationError("--batch must be 1…10000") }
        guard baselineJobs > 0 else { throw ValidationError("--baseline-jobs must be positive") }
        guard failUnder >= 0, failUnder.isFinite else { throw ValidationError("--fail-under must be a ratio ≥ 0") }
        try recording.validate(json: json)
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.benchqueue", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "queue", migrations: try migrations.load())
        let pool = PostgresPool(configuration: scratch.configuration, size: claimers)
        do {
            let before = json ? nil : try await recording.yardstick(scratch.configuration)
            let result = try await measure(pool: pool, database: scratch.name)
            let yardstick = try await recording.closing(before, on: scratch.configuration)
            pool.shutdown()
            await scratch.drop(keep: keepDatabase)
            if json { print(Self.json(result)) } else { try recording.finish(bench: "queue", report: report(result), yardstick: yardstick) }
            if failUnder > 0, result.ratio < failUnder {
                print("bench queue: drain / baseline \(String(format: "%.1f", result.ratio))× is under --fail-under \(failUnder)×: the queue core regressed")
                throw ExitCode(1)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            pool.shutdown()
            await scratch.drop(keep: keepDatabase)
            throw error
        }
    }

    struct Result: Codable {
        var jobs: Int, claimers: Int, batch: Int, baselineJobs: Int
        var enqueuePerSecond: Double
        var drainPerSecond: Double
        /// CPU of the scratch database's backends while draining, per job: claim, verdict write
        /// and event, the work the database does for each purchase whatever else shares the
        /// machine. Steadier than the rates on a busy box. Nil without `/proc`.
        var drainPostgresMicrosecondsPerJob: Double?
        var baselinePerSecond: Double
        var ratio: Double
    }

    func measure(pool: PostgresPool, database: String) async throws -> Result {
        let queue = JobQueue(pool: pool)
        let batches = stride(from: 0, to: jobs, by: batch).map { start in
            (start..<min(start + batch, jobs)).map { NewJob(receiptData: "bench-\($0)", transactionID: "t\($0)", userID: "u\($0 % 1000)") }
        }

        // 1. Enqueue: B jobs per statement, K statements in flight.
        let enqueueStart = ContinuousClock.now
        try await forEachConcurrently(batches, width: claimers) { _ = try await queue.enqueue($0) }
        let enqueueSeconds = (ContinuousClock.now - enqueueStart).seconds

        // 2. Drain: K claimers, each claims B and completes B until the queue is empty.
        let drainStart = ContinuousClock.now
        let postgresBefore = CommandCPU.seconds(of: "postgres", commandLineContaining: database)
        let drained = try await withThrowingTaskGroup(of: Int.self) { group in
            for claimer in 0..<claimers {
                group.addTask {
                    let worker = "bench-\(claimer)"
                    var done = 0
                    while true {
                        let leases = try await queue.claim(limit: batch, worker: worker, lease: .seconds(300))
                        if leases.isEmpty { return done }
                        // The workers' write path: lock the leases, end the jobs, one transaction.
                        let result = try await queue.record(leases.map { FinishedAttempt(lease: $0, decision: .result(.rejected(reason: "bench: no-op job"))) },
                                                            worker: worker)
                        done += result.completed.count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        let drainSeconds = (ContinuousClock.now - drainStart).seconds
        let postgresAfter = CommandCPU.seconds(of: "postgres", commandLineContaining: database)
        let drainPostgres = postgresBefore.flatMap { before in postgresAfter.map { ($0 - before) / Double(jobs) * 1_000_000 } }
        guard drained == jobs else { throw ValidationError("drained \(drained) of \(jobs) jobs: the queue lost or duplicated work") }

        // 3. Baseline: one UPDATE … WHERE id = $1 and its commit per job, K connections.
        let ids = try await pool.query("SELECT id FROM receiptq.jobs ORDER BY id LIMIT $1", [baselineJobs]).map { try $0.decode("id", as: Int64.self) }
        let chunks = stride(from: 0, to: ids.count, by: max(1, ids.count / claimers + 1)).map { Array(ids[$0..<min($0 + ids.count / claimers + 1, ids.count)]) }
        let baselineStart = ContinuousClock.now
        try await forEachConcurrently(chunks, width: claimers) { chunk in
            try await pool.withConnection { connection in
                for id in chunk { try connection.query("UPDATE receiptq.jobs SET updated_at = now() WHERE id = $1", [id]) }
            }
        }
        let baselineSeconds = (ContinuousClock.now - baselineStart).seconds

        let drainRate = Double(jobs) / drainSeconds
        let baselineRate = Double(ids.count) / baselineSeconds
        return Result(jobs: jobs, claimers: claimers, batch: batch, baselineJobs: ids.count,
                      enqueuePerSecond: Double(jobs) / enqueueSeconds, drainPerSecond: drainRate,
                      drainPostgresMicrosecondsPerJob: drainPostgres, baselinePerSecond: baselineRate, ratio: drainRate / baselineRate)
    }

    static func json(_ result: Result) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(result)) ?? Data(), as: UTF8.self)
    }

    func report(_ result: Result) -> String {
        """
            bench queue: \(result.jobs) jobs, \(result.claimers) claimers, batch \(result.batch)
              enqueue                          \(Int(result.enqueuePerSecond)) jobs/s
              drain (claim + complete)         \(Int(result.drainPerSecond)) jobs/s\(result.drainPostgresMicrosecondsPerJob.map { ", PostgreSQL CPU \(Int($0.rounded())) µs per job" } ?? "")
              baseline (1-row UPDATE + commit) \(Int(result.baselinePerSecond)) jobs/s  (\(result.baselineJobs) jobs)
              drain / baseline                 \(String(format: "%.1f", result.ratio))×
            """
    }
}

/// Runs `body` for each element with at most `width` running at once.
func forEachConcurrently<T: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var iterator = items.makeIterator()
        for _ in 0..<width {
            guard let item = iterator.next() else { break }
            group.addTask { try await body(item) }
        }
        while try await group.next() != nil {
            guard let item = iterator.next() else { continue }
            group.addTask { try await body(item) }
        }
    }
}
