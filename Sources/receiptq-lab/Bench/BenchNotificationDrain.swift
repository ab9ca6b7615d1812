import CommandSupport
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// The second half of `bench notifications`: `workers` real `receiptq worker` processes (logged
/// in as the worker's role, trusting the bench's CA) drain the notifications the API stored, each
/// verified again and applied with its events in one transaction by the worker's
/// `NotificationRunner`. Applied/s is counted between the first and the last sample that saw
/// progress, so the processes' start-up is not in it; it stops after `timeout` even if notifications
/// are left (the rate is then over what was applied).
struct BenchNotificationDrain {
    struct Figures: Codable {
        var workers: Int
        var applied: Int
        var stored: Int
        var failed: Int
        var seconds: Double
        var appliedPerSecond: Double
        var workerCPUMilliseconds: Double
        var postgresCPUMilliseconds: Double
    }

    let scratch: ScratchDatabase
    let workers: Int
    let signedData: BenchAPIServer.SignedData

    func run(pool: PostgresPool, timeout: Duration) async throws -> Figures {
        let stored = try await count("SELECT count(*) AS n FROM receiptq.notifications", pool)
        let url = try await scratch.connectionString(as: .worker)
        var environment = ProcessInfo.processInfo.environment
        environment["RECEIPTQ_LOG_LEVEL"] = "warning"
        var processes: [SpawnedProcess] = []
        defer { processes.forEach { $0.terminate() } }
        // Progress is polled on a connection of its own, whose server process's CPU is taken out
        // of PostgreSQL's figure: a count every 100 ms (a scan of 40,000 rows, ~20 ms) is the
        // bench's work, not the workers', and was 15 % of that figure.
        let poller = PostgresPool(configuration: scratch.configuration, size: 1)
        defer { poller.shutdown() }
        let pollerPID = try await poller.withConnection { $0.backendPID }
        let postgresBefore = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name)
        let pollerBefore = ProcessUsage.read(pid: pollerPID).cpuSeconds
        for index in 0..<workers {
            processes.append(try SpawnedProcess(executable: ReceiptQBinary.url.path, arguments: [
                "worker", "--database-url", url, "--name", "bench-notifications-\(index)", "--concurrency", "1",
                "--bundle-ids", signedData.bundleId, "--signed-data-root", signedData.rootPEMPath, "--trust-test-roots",
                "--apple-production-url", "http://127.0.0.1:9/verifyReceipt", "--apple-sandbox-url", "http://127.0.0.1:9/verifyReceipt",
            ], environment: environment))
        }
        var first: (ContinuousClock.Instant, Int)?
        var last: (ContinuousClock.Instant, Int) = (.now, 0)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let open = try await count("SELECT count(*) AS n FROM receiptq.notifications WHERE state IN ('queued', 'applying')", poller)
            let done = stored - open
            if done > last.1 {
                if first == nil { first = last }
                last = (.now, done)
            }
            if done >= stored || processes.contains(where: { !$0.isRunning }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let workerCPU = processes.reduce(0.0) { $0 + ProcessUsage.read(pid: $1.pid).cpuSeconds }
        var postgresCPU = 0.0
        if let before = postgresBefore, let now = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name) {
            postgresCPU = now - before - (ProcessUsage.read(pid: pollerPID).cpuSeconds - pollerBefore)
        }
        for process in processes { process.terminate() }
        for process in processes { _ = await process.wait(timeout: .seconds(20)) }
        processes.removeAll()
        let applied = try await count("SELECT count(*) AS n FROM receiptq.notifications WHERE state = 'applied'", pool)
        let failed = try await count("SELECT count(*) AS n FROM receiptq.notifications WHERE state = 'failed'", pool)
        let seconds = first.map { (last.0 - $0.0).seconds } ?? 0
        let progressed = last.1 - (first?.1 ?? 0)
        return Figures(workers: workers, applied: applied, stored: stored, failed: failed, seconds: seconds,
                       appliedPerSecond: seconds > 0 ? Double(progressed) / seconds : 0,
                       workerCPUMilliseconds: workerCPU / Double(max(applied, 1)) * 1000,
                       postgresCPUMilliseconds: postgresCPU / Double(max(applied, 1)) * 1000)
    }

    private func count(_ sql: String, _ pool: PostgresPool) async throws -> Int {
        try await pool.query(sql)[0].decode("n", as: Int.self)
    }
}
