import CommandSupport
import ArgumentParser
import Foundation
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// `receiptq scheduler`: requeues expired leases and timed-out verifications, prunes old
/// finished jobs. Run two or more for availability; one leads.
struct SchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Requeue expired leases and timed-out verifications; prune finished jobs (one leader at a time).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Time between ticks (e.g. 2s, 500ms).")
    var interval: Duration = .seconds(2)

    @Option(help: "Rows per maintenance statement.")
    var batchSize: Int = 1000

    @Option(help: "Delete finished jobs older than this (e.g. 30d); 0s keeps them forever.")
    var retention: Duration = .seconds(30 * 86_400)

    @Option(help: "Give up on a job this long after it was enqueued.")
    var retryDeadline: Duration = .seconds(72 * 3600)

    @Option(help: "Give up on a job after this many attempts.")
    var maxAttempts: Int = 1000

    func validate() throws {
        guard interval > .zero else { throw ValidationError("--interval must be positive") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        guard maxAttempts > 0 else { throw ValidationError("--max-attempts must be positive") }
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.scheduler")
        let config = try database.configuration(applicationName: "receiptq-scheduler-\(getpid())")
        var settings = ReceiptQueue.Scheduler.Configuration()
        settings.interval = interval
        settings.batchSize = batchSize
        settings.retention = retention == .zero ? nil : retention
        settings.retryPolicy.deadline = retryDeadline
        settings.retryPolicy.maxAttempts = maxAttempts
        let scheduler = ReceiptQueue.Scheduler(database: config, configuration: settings, logger: logger)
        let group = ServiceGroup(services: [scheduler], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        logger.info("scheduler starting", metadata: ["database": "\(config.redacted)", "interval": "\(interval)"])
        try await group.run()
    }
}
