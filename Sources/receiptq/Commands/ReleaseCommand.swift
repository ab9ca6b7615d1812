import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq release --worker NAME`: ends every lease a dead worker holds now instead of when
/// it expires, as the scheduler ends an expired lease (`ReleaseWorkerLeases`): a job whose retry
/// budget is spent ends `failed`, never back in the queue.
struct ReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "End every lease a dead worker holds now, as if it had expired.",
        discussion: """
            Only for a worker you know is dead (its leases would expire anyway; a live worker's late answers are then \
            refused by the fence). Jobs, notifications, consumption requests, webhook deliveries and history syncs go back to their \
            queues; a job past its retry budget ends failed with its job.failed event. The budget is the scheduler's: \
            RECEIPTQ_MAX_ATTEMPTS and RECEIPTQ_RETRY_DEADLINE from the shared configuration, or the flags. Prints what moved (--dry-run: what would move).
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The dead worker's name (its --name; locked_by in the queues).")
    var worker: String

    @Flag(help: "Print what would move; change nothing. Default: off.")
    var dryRun = false

    @OptionGroup(title: "Retry budget (shared with the workers and the scheduler)") var retry: RetryBudgetOptions

    func validate() throws {
        guard !worker.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--worker must name a worker") }
        if let retryDeadline = retry.retryDeadline, retryDeadline <= .zero { throw ValidationError("--retry-deadline must be positive") }
        if let maxAttempts = retry.maxAttempts, maxAttempts <= 0 { throw ValidationError("--max-attempts must be positive") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.release", defaultLevel: .error)
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-release"), size: 1)
        defer { pool.shutdown() }
        var budgets = ReleaseWorkerLeases.Budgets()
        budgets.jobs = retry.budget(budgets.jobs)
        let (worker, dryRun, chosen) = (self.worker, self.dryRun, budgets)
        let released = try await pool.withConnection { connection in
            dryRun ? try DryRun.run(on: connection) { try ReleaseWorkerLeases.run(worker: worker, budgets: chosen, on: $0) }
                : try connection.transaction { try ReleaseWorkerLeases.run(worker: worker, budgets: chosen, on: $0) }
        }
        let failed = released.jobsFailed.sorted().map(String.init).joined(separator: " ")
        print("""
            \(dryRun ? "would release" : "released") \(released.total) leases of worker \(worker): \
            \(released.jobsRequeued) jobs requeued, \(released.jobsFailed.count) jobs failed (budget spent)\(failed.isEmpty ? "" : ": " + failed), \
            \(released.notifications) notifications, \(released.consumptionRequests) consumption requests, \(released.deliveries) webhook deliveries, \
            \(released.historySyncs) history syncs
            """)
    }
}
