import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq redrive`: puts failed jobs back in the queue with a fresh retry budget, once the
/// cause is fixed (an Apple outage longer than the retry deadline, a wrong shared secret).
struct RedriveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redrive",
        abstract: "Put failed jobs back in the queue with a fresh retry budget.",
        discussion: "Give --job for particular jobs, or --failed-within for every job that failed recently. Prints the ids that moved (--dry-run: that would move).")

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("job"), help: "A failed job's id (repeatable).")
    var jobs: [Int64] = []

    @Option(help: "Every job that failed within this long, e.g. 7d.")
    var failedWithin: Duration?

    @Flag(help: "Print the ids that would move; change nothing.")
    var dryRun = false

    func validate() throws {
        guard jobs.isEmpty != (failedWithin == nil) else { throw ValidationError("give either --job or --failed-within") }
        if let failedWithin, failedWithin <= .zero { throw ValidationError("--failed-within must be positive") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.redrive", defaultLevel: .error)
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-redrive"), size: 1)
        defer { pool.shutdown() }
        let ids = jobs, since = failedWithin, dryRun = self.dryRun
        let moved = try await pool.withConnection { connection in
            let redrive = { (connection: PostgresConnection) throws -> [Int64] in
                if let since { return try RedriveFailedJobs.run(failedWithin: since, on: connection) }
                return try RedriveFailedJobs.run(ids: ids, on: connection)
            }
            return dryRun ? try DryRun.run(on: connection, redrive) : try redrive(connection)
        }
        if !dryRun { try await pool.query("SELECT pg_notify('receiptq_jobs', '')") }   // wake idle workers
        print("\(dryRun ? "would re-drive" : "re-drove") \(moved.count) failed jobs\(moved.isEmpty ? "" : ": " + moved.sorted().map(String.init).joined(separator: " "))")
    }
}
