import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab bench outage`: a steady stream of receipts against the fake App Store (a child
/// process, 3–6 s per answer) while Apple goes down for `--outage` in each `--mode` and comes
/// back — or, with `--outage 0s` and `--faults`, merely degraded. Real `receiptq worker`
/// processes and a `receiptq scheduler` (it puts hung verifications back). Prints, per mode: how long after Apple's return the first request reached it (the
/// idle gap), how long the backlog took to drain, Apple requests per receipt, time to verdict
/// p50/p99/max, breaker openings (from the workers' logs), and outcomes.
struct BenchOutage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outage",
        abstract: "A steady stream while Apple is down (each mode) or degraded: idle gap, drain time, requests per receipt.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Receipts submitted per second, steadily.") var rate = 500
    @Option(help: "How long Apple is down (0s: no outage, only --faults).") var outage: Duration = .seconds(60)
    @Option(help: "Outage modes to run, one run each: refused, 503, html200.") var mode: [String] = ["refused", "503", "html200"]
    @Option(help: "Steady stream before the outage begins.") var before: Duration = .seconds(10)
    @Option(help: "Stream after Apple returns (then the queue drains).") var after: Duration = .seconds(20)
    @Option(help: "Random faults for the whole run, e.g. 503=0.05,21005=0.05,21199=0.05,hang=0.01.") var faults = ""
    @Option(help: "Worker processes.") var workers = 2
    @Option(help: "Verifications in flight per worker.") var concurrency = 2000
    @Option(help: "Fake App Store latency range.") var latency = "3s-6s"
    @Option(help: "The workers' Apple request timeout.") var appleTimeout: Duration = .seconds(15)
    @Option(help: "Share of receipts made in the sandbox (production answers 21007, the worker asks the sandbox).") var sandbox = 0.0
    @Option(help: "Share of purchases submitted again 1 s later in another receipt (a client that retries with a fresh receipt).")
    var duplicates = 0.0
    @Flag(help: "Keep the scratch database and the workers' logs for inspection.") var keepDatabase = false
    @Option(help: "Time to verdict is also given for receipts submitted after this long (workers past their cold start).")
    var warm: Duration = .seconds(15)

    func validate() throws {
        guard (1...20_000).contains(rate) else { throw ValidationError("--rate must be 1…20000") }
        guard outage >= .zero, before >= .seconds(1), after >= .zero else { throw ValidationError("--outage, --before, --after must not be negative") }
        guard (0...1).contains(sandbox) else { throw ValidationError("--sandbox must be a share between 0 and 1") }
        guard (0...1).contains(duplicates) else { throw ValidationError("--duplicates must be a share between 0 and 1") }
        for name in mode where !["refused", "503", "html200"].contains(name) { throw ValidationError("--mode \(name): refused, 503 or html200") }
        _ = try faultArguments()
    }

    func faultArguments() throws -> [String] {
        try faults.split(separator: ",").flatMap { entry -> [String] in
            let parts = entry.split(separator: "=")
            guard parts.count == 2, let probability = Double(parts[1]), (0...1).contains(probability),
                  let flag = ["503": "--p503", "21005": "--p21005", "21199": "--p21199", "hang": "--p-hang"][String(parts[0])] else {
                throw ValidationError("--faults \(entry): NAME=PROBABILITY, NAME one of 503, 21005, 21199, hang")
            }
            return [flag, String(probability)]
        }
    }

    struct Run: Codable {
        var mode: String
        var receipts: Int
        var firstRequestAfterReturnSeconds: Double?
        var idleSecondsAfterReturn: Int?
        var backlogDrainedSecondsAfterReturn: Double?
        /// From the first receipt submitted to the last verdict: how long the whole load took to
        /// end (issue 30's "took 181 s to all end").
        var firstSubmissionToLastVerdictSeconds: Double?
        var appleRequestsPerReceipt: Double
        var verdictP50Seconds: Double, verdictP99Seconds: Double, verdictMaxSeconds: Double
        /// Verdicts per second between the 10th and the 90th percentile of finish times: the rate
        /// the queue moved at while it was busy (what a degraded Apple costs, retries included).
        var steadyVerdictsPerSecond: Double?
        var breakerOpenings: Int
        /// Over receipts submitted after `warm`: p50, p99, max (nil: none).
        var warmVerdictSeconds: [Double]?
        /// Second requests the workers sent for stragglers (their receiptq_worker_apple_hedges_total).
        var slowestWarm: [String]
        var hedges: Int
        var states: [String: Int]
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        for name in outage > .zero ? mode : ["none"] {
            let scratch = try await ScratchDatabase.migrated(server: server, purpose: "outage", migrations: try migrations.load())
            do {
                report(try await measure(scratch, mode: name))
                await scratch.drop(keep: keepDatabase)
            } catch {
                await scratch.drop(keep: false)
                throw error
            }
        }
    }

    /// The `n`th purchase's job; `again`: the same purchase in another receipt (it also holds an
    /// older purchase), as a client sends when it retries with a refreshed receipt.
    static func job(_ n: Int, sandbox: Bool, again: Bool) -> NewJob {
        var transactions = [FakeTransaction(transactionID: "o\(n)", productID: "coins100")]
        if again { transactions.insert(FakeTransaction(transactionID: "old\(n)", productID: "coins100"), at: 0) }
        let receipt = FakeReceipt(bundleID: "com.example.bench", environment: sandbox ? .sandbox : .production, inApp: transactions)
        return NewJob(receiptData: receipt.padded(toBase64Length: 6144).base64(), transactionID: "o\(n)", userID: "u\(n % 1000)")
    }

    /// Whether the `n`th purchase is among `share` of them: spread evenly, the same in every run.
    static func picked(_ n: Int, share: Double, salt: UInt64) -> Bool {
        guard share > 0 else { return false }
        var mixed = (UInt64(n) &+ salt &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 31
        return Double(mixed % 10_000) < share * 10_000
    }

    func measure(_ scratch: ScratchDatabase, mode: String) async throws -> Run {
        var arguments = try faultArguments()
        if outage > .zero {
            arguments += ["--outage", "\(Int(before.seconds))s-\(Int((before + outage).seconds))s:\(mode)"]
        }
        let fake = try await BenchFake.start(url: nil, latency: latency, inProcess: false, arguments: arguments)
        let fakeStarted = Date()
        let pool = PostgresPool(configuration: scratch.configuration, size: 3)
        defer { pool.shutdown() }
        let queue = JobQueue(pool: pool)
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("bench-outage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        // Kept with the database: the workers' logs say when the breaker opened and why.
        defer {
            if keepDatabase {
                FileHandle.standardError.write(Data("outage: worker logs kept in \(logs.path)\n".utf8))
            } else {
                try? FileManager.default.removeItem(at: logs)
            }
        }
        let workerURL = try await scratch.connectionString(as: .worker)
        let adminPorts = try (0..<workers).map { _ in try FreePort.pick() }
        let children = try (0..<workers).map { index in
            try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: [
                "worker", "--database-url", workerURL, "--admin-port", "\(adminPorts[index])", "--name", "outage-\(index)", "--concurrency", "\(concurrency)",
                "--bundle-ids", "com.example.bench", "--app-apple-id", "1234567890", "--apple-timeout", appleTimeout.argumentText, "--receipt-check", "off",   // the fake's JSON receipts
                "--apple-production-url", fake.productionURL,
                "--apple-sandbox-url", fake.productionURL.replacingOccurrences(of: "/production/", with: "/sandbox/"),
            ], environment: ProcessInfo.processInfo.environment.merging(["RECEIPTQ_LOG_LEVEL": "warning"]) { caller, _ in caller },   // the caller's RECEIPTQ_LOG_LEVEL first (debug: each answer)
               stderr: .file(logs.appendingPathComponent("worker-\(index).log").path))
        }
        // The scheduler puts hung verifications (timed out) back, as in production.
        let scheduler = try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: [
            "scheduler", "--database-url", try await scratch.connectionString(as: .scheduler), "--interval", "1s",
        ], environment: ProcessInfo.processInfo.environment.merging(["RECEIPTQ_LOG_LEVEL": "warning"]) { caller, _ in caller },
           stderr: .file(logs.appendingPathComponent("scheduler.log").path))
        defer { children.forEach { if $0.isRunning { $0.terminate() } } }
        defer { if scheduler.isRunning { scheduler.terminate() } }

        // The stream: `rate` receipts a second, in 10 batches a second, until `after` past the return.
        let streamFor = before + outage + after
        let clock = ContinuousClock()
        let started = clock.now
        var submitted = 0
        while clock.now - started < streamFor {
            let due = Int((clock.now - started).seconds * Double(rate))
            if due > submitted {
                var batch = (submitted..<due).map { n in
                    Self.job(n, sandbox: Self.picked(n, share: sandbox, salt: 1), again: false)
                }
                // Purchases submitted about 1 s ago, sent again in a fresh receipt.
                let lateBy = rate
                batch += (max(0, submitted - lateBy)..<max(0, due - lateBy)).filter { Self.picked($0, share: duplicates, salt: 2) }.map { n in
                    Self.job(n, sandbox: Self.picked(n, share: sandbox, salt: 1), again: true)
                }
                _ = try await queue.enqueue(batch)
                submitted = due
            }
            guard children.allSatisfy(\.isRunning) else { throw BenchError("a worker process exited early") }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Drain (jobs Apple keeps failing are retried; give up waiting after a few minutes).
        let drainDeadline = clock.now + .seconds(300)
        while try await pool.query("SELECT coalesce(sum(jobs), 0)::bigint AS left FROM receiptq.queue_depth")[0].decode("left", as: Int.self) > 0,
              clock.now < drainDeadline {
            try await Task.sleep(for: .milliseconds(250))
        }
        let stats = try await fake.stats()
        var hedges = 0
        for port in adminPorts {
            guard let url = URL(string: "http://127.0.0.1:\(port)/metrics"),
                  let (data, _) = try? await URLSession.shared.data(from: url) else { continue }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("receiptq_worker_apple_hedges_total") {
                hedges += Int(Double(line.split(separator: " ").last ?? "") ?? 0)
            }
        }
        scheduler.terminate()
        for child in children { child.terminate() }
        for child in children { child.waitUntilExit() }
        await fake.stop()

        let returned = fakeStarted.addingTimeInterval((before + outage).seconds)
        var firstAfter: Double?
        var idle: Int?
        if outage > .zero {
            let returnSecond = Int((before + outage).seconds)
            if let first = stats.requestsPerSecond.indices.first(where: { $0 >= returnSecond && stats.requestsPerSecond[$0] > 0 }) {
                firstAfter = Double(first - returnSecond)
                idle = first - returnSecond
            }
        }
        // Time to verdict of every receipt, and (warm_*) of those submitted once the workers were warm.
        let warmFrom = fakeStarted.addingTimeInterval(warm.seconds)
        let times = try await pool.query("""
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t.seconds) AS p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY t.seconds) AS p99,
                   max(t.seconds) AS worst,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY t.seconds) FILTER (WHERE t.warm) AS warm_p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY t.seconds) FILTER (WHERE t.warm) AS warm_p99,
                   max(t.seconds) FILTER (WHERE t.warm) AS warm_worst,
                   extract(epoch FROM max(t.finished_at) FILTER (WHERE t.created_at <= to_timestamp($1))) - $1 AS drained,
                   extract(epoch FROM max(t.finished_at) - min(t.created_at)) AS all_ended,
                   percentile_cont(0.1) WITHIN GROUP (ORDER BY extract(epoch FROM t.finished_at)) AS finish_p10,
                   percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM t.finished_at)) AS finish_p90,
                   count(*) AS finished
            FROM (SELECT extract(epoch FROM finished_at - created_at) AS seconds, finished_at, created_at,
                         created_at >= to_timestamp($2) AS warm
                  FROM receiptq.jobs WHERE finished_at IS NOT NULL) AS t
            """, [returned.timeIntervalSince1970, warmFrom.timeIntervalSince1970])[0]
        let warmVerdict: [Double]? = try times.decodeIfPresent("warm_worst", as: Double.self).map { worst in
            [try times.decodeIfPresent("warm_p50") ?? 0, try times.decodeIfPresent("warm_p99") ?? 0, worst]
        }
        // The warm tail, explained: attempts and last error of the slowest verdicts.
        var slowest: [String] = []
        for row in try await pool.query("""
            SELECT round(extract(epoch FROM finished_at - created_at)::numeric, 1)::text AS seconds, attempts,
                   coalesce(last_error, '') AS error
            FROM receiptq.jobs WHERE finished_at IS NOT NULL AND created_at >= to_timestamp($1)
            ORDER BY finished_at - created_at DESC LIMIT 3
            """, [warmFrom.timeIntervalSince1970]) {
            let error: String = try row.decode("error")
            slowest.append("\(try row.decode("seconds", as: String.self)) s, \(try row.decode("attempts", as: Int.self)) attempt(s)\(error.isEmpty ? "" : ", last error: \(error.prefix(60))")")
        }
        var steadyRate: Double?
        if let p10: Double = try times.decodeIfPresent("finish_p10"), let p90: Double = try times.decodeIfPresent("finish_p90"), p90 > p10 {
            steadyRate = 0.8 * Double(try times.decode("finished", as: Int.self)) / (p90 - p10)
        }
        var states: [String: Int] = [:]
        for row in try await pool.query("SELECT state, count(*) AS n FROM receiptq.jobs GROUP BY state") {
            states[try row.decode("state")] = try row.decode("n")
        }
        let openings = (0..<workers).reduce(0) { total, index in
            let text = (try? String(contentsOf: logs.appendingPathComponent("worker-\(index).log"), encoding: .utf8)) ?? ""
            return total + text.components(separatedBy: "circuit breaker open").count - 1
        }
        return Run(mode: mode, receipts: submitted, firstRequestAfterReturnSeconds: firstAfter, idleSecondsAfterReturn: idle,
                   backlogDrainedSecondsAfterReturn: outage > .zero ? try times.decodeIfPresent("drained") : nil,
                   firstSubmissionToLastVerdictSeconds: try times.decodeIfPresent("all_ended"),
                   appleRequestsPerReceipt: Double(stats.requests) / Double(max(1, submitted)),
                   verdictP50Seconds: try times.decodeIfPresent("p50") ?? 0, verdictP99Seconds: try times.decodeIfPresent("p99") ?? 0,
                   verdictMaxSeconds: try times.decodeIfPresent("worst") ?? 0, steadyVerdictsPerSecond: steadyRate, breakerOpenings: openings,
                   warmVerdictSeconds: warmVerdict, slowestWarm: slowest, hedges: hedges, states: states)
    }

    func report(_ run: Run) {
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "n/a" }
        print("""
            bench outage (\(run.mode)): \(run.receipts) receipts at \(rate)/s, \(workers) workers × \(concurrency), \
            Apple down \(outage.argumentText) after \(before.argumentText)\(faults.isEmpty ? "" : ", faults \(faults)")
              first request to Apple after its return   \(seconds(run.firstRequestAfterReturnSeconds)) (idle gap \(run.idleSecondsAfterReturn.map { "\($0) s" } ?? "n/a"))
              backlog drained after its return         \(seconds(run.backlogDrainedSecondsAfterReturn)) (outage \(outage.argumentText))
              first submission → last verdict          \(seconds(run.firstSubmissionToLastVerdictSeconds))
              Apple requests per receipt               \(String(format: "%.3f", run.appleRequestsPerReceipt))
              time to verdict p50 / p99 / max          \(seconds(run.verdictP50Seconds)) / \(seconds(run.verdictP99Seconds)) / \(seconds(run.verdictMaxSeconds))
              … submitted after \(warm.argumentText) (warm)          \(run.warmVerdictSeconds.map { $0.map { seconds($0) }.joined(separator: " / ") } ?? "n/a")
              verdicts/s while busy (p10–p90 finishes) \(run.steadyVerdictsPerSecond.map { String(format: "%.1f", $0) } ?? "n/a")
              slowest warm verdicts                    \(run.slowestWarm.joined(separator: "; "))
              hedges (second requests for stragglers)  \(run.hedges) (\(String(format: "%.2f", Double(run.hedges) * 100 / Double(max(1, run.receipts)))) % of receipts)
              breaker openings (all workers)           \(run.breakerOpenings)
              outcomes                                 \(run.states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            """)
    }
}
