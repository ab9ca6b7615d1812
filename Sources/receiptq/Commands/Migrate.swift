import ArgumentParser
import CommandSupport
import Postgres
import ReceiptQueue

/// `receiptq migrate`: applies SQL/migrations once each, in order, under an advisory lock.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the SQL migrations that are missing (safe to run concurrently and repeatedly).")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "Database") var migrations: MigrationsOptions

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.migrate", defaultLevel: .error)
        let files = try migrations.load()
        let config = try database.configuration(applicationName: "receiptq-migrate")
        let pool = PostgresPool(configuration: config, size: 1)
        defer { pool.shutdown() }
        let report = try await pool.withConnection { try Migrator.migrate(files, on: $0) }
        if report.applied.isEmpty {
            print("schema is current (\(report.alreadyApplied) migrations applied before)")
        } else {
            print("applied \(report.applied.joined(separator: ", ")) (\(report.alreadyApplied) applied before)")
        }
    }
}
