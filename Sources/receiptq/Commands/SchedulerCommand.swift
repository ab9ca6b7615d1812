import ArgumentParser
import CommandSupport
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

    private static let defaults = Scheduler.Configuration()

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var admin: AdminOptions

    @Option(help: "Time between ticks. Default: \(defaults.interval.argumentText).")
    var interval: Duration?

    @Option(help: "Rows per maintenance statement. Default: \(defaults.batchSize).")
    var batchSize: Int?

    @Option(help: "Delete jobs that ended granted, already_granted or resubmit this long after (the ledger keeps the purchase); 0s keeps them forever. Default: \((defaults.retention ?? .zero).argumentText).")
    var retention: Duration?

    @Option(help: "Keep receipts Apple rejected this long; 0s keeps them forever. Default: \((defaults.rejectedRetention ?? .zero).argumentText).")
    var rejectedRetention: Duration?

    @Option(help: "Keep receipts of failed jobs (gave up; re-drivable) this long. Default: 0s, forever.")
    var failedRetention: Duration?

    @Option(help: "Keep events (the feed, webhook replay) this long; 0s keeps them forever. Default: \((defaults.eventRetention ?? .zero).argumentText).")
    var eventRetention: Duration?

    @Option(help: "Give up on a job this long after it was enqueued (the workers' setting too). Default: \(defaults.budget.deadline.argumentText).")
    var retryDeadline: Duration?

    @Option(help: "Give up on a job after this many attempts. Default: \(defaults.budget.maxAttempts).")
    var maxAttempts: Int?

    func settings() throws -> Scheduler.Configuration {
        var settings = Scheduler.Configuration()
        settings.interval = interval ?? settings.interval
        settings.batchSize = batchSize ?? settings.batchSize
        if let retention { settings.retention = retention == .zero ? nil : retention }
        if let rejectedRetention { settings.rejectedRetention = rejectedRetention == .zero ? nil : rejectedRetention }
        if let failedRetention { settings.failedRetention = failedRetention == .zero ? nil : failedRetention }
        if let eventRetention { settings.eventRetention = eventRetention == .zero ? nil : eventRetention }
        settings.budget.deadline = retryDeadline ?? settings.budget.deadline
        settings.budget.maxAttempts = maxAttempts ?? settings.budget.maxAttempts
        do {
            try settings.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        return settings
    }

    func run() async throws {
        let settings = try settings()
        let logger = LogSetup.bootstrap(label: "receiptq.scheduler")
        let config = try database.configuration(applicationName: "receiptq-scheduler-\(getpid())")
        let adminSettings = try admin.configuration(defaultPort: 0)
        let scheduler = Scheduler(database: config, configuration: settings, logger: logger)
        var services: [any Service] = [scheduler]
        if adminSettings.isEnabled {
            // So Kubernetes can probe it (/readyz: its database answers on a connection of the probe's
            // own), and Prometheus reads the queue's health from it.
            let admin = AdminServer(configuration: adminSettings, readiness: ReadinessProbe(database: config, logger: logger), logger: logger)
            services.append(admin)
            services.append(QueueHealthGauges(database: config, registry: admin.registry, logger: logger))
        }
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        logger.info("scheduler starting", metadata: ["database": "\(config.redacted)", "interval": "\(settings.interval.argumentText)"])
        try await group.run()
    }
}
