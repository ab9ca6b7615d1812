import AppleSignedData
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Worker

/// `receiptq scheduler`: requeues expired leases and timed-out verifications, prunes old
/// finished jobs. Run two or more for availability; one leads. With App Store Server API
/// credentials it also recovers notifications we never received (Get Notification History).
struct SchedulerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Requeue expired leases and timed-out verifications; prune finished jobs (one leader at a time).")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "Retry budget (shared with the workers)") var retry: RetryBudgetOptions
    @OptionGroup(title: "Maintenance") var maintenance: SchedulerMaintenanceOptions
    @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
    @OptionGroup(title: "Admin listener") var admin: AdminOptions

    func settings() throws -> Scheduler.Configuration {
        var settings = Scheduler.Configuration()
        let maintenance = self.maintenance
        settings.interval = maintenance.interval ?? settings.interval
        settings.batchSize = maintenance.batchSize ?? settings.batchSize
        if let retention = maintenance.retention { settings.retention = retention == .zero ? nil : retention }
        if let rejectedRetention = maintenance.rejectedRetention { settings.rejectedRetention = rejectedRetention == .zero ? nil : rejectedRetention }
        if let failedRetention = maintenance.failedRetention { settings.failedRetention = failedRetention == .zero ? nil : failedRetention }
        if let eventRetention = maintenance.eventRetention { settings.eventRetention = eventRetention == .zero ? nil : eventRetention }
        if let correctionRetention = maintenance.correctionRetention {
            settings.correctionRetention = correctionRetention == .zero ? nil : correctionRetention
        }
        settings.budget = retry.budget(settings.budget)
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
        var work: [any Service] = [scheduler]
        var services: [any Service] = []
        if adminSettings.isEnabled {
            // So Kubernetes can probe it (/readyz: its database answers on a connection of the probe's
            // own), and Prometheus reads the queue's health from it. Shut down last.
            // Before anything makes a metric: notification recovery's Server API calls count through swift-metrics.
            let registry = PrometheusBootstrap.metricsSystem(help: WorkerMetrics.help, buckets: WorkerMetrics.buckets)
            let admin = AdminServer(configuration: adminSettings, registry: registry,
                                    readiness: ReadinessProbe(database: config, logger: logger), logger: logger)
            services.append(admin)
            work.append(QueueHealthGauges(database: config, registry: admin.registry, logger: logger))
        }
        let environment = EnvironmentReader()
        let http = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 16))
        let pool = PostgresPool(configuration: config, size: 2, name: "apple-recovery", logger: logger)
        if serverAPI.isConfigured(environment) {
            let api = try serverAPI.settings(environment)
            var recovery = NotificationHistoryRecovery.Configuration()
            recovery.interval = maintenance.notificationRecoveryInterval ?? recovery.interval
            let verifier: SignedTransactionVerifier
            try serverAPI.trustedRoots(environment).log(to: logger)
            do {
                verifier = try SignedTransactionVerifier(trustedRoots: api.trustedRoots, bundleIds: [api.bundleId], appAppleId: api.appAppleId)
            } catch {
                throw ConfigurationError("signed data: \(error)")
            }
            // Its Server API calls join the workers' in receiptq.call_minutes (the console's latency chart).
            let calls = CallRecorder()
            work.append(NotificationHistoryRecovery(configuration: recovery, pool: pool,
                                                    clients: try ServerAPIWiring.clients(api, http: http, budgetPool: pool, calls: calls),
                                                    verifier: verifier, logger: logger))
            work.append(CallMinutesWriter(process: "scheduler", recorder: calls, pool: pool, logger: logger))
        }
        services.append(ConcurrentServices(work))   // on SIGTERM, every loop stops at once
        let group = ProcessServiceGroup.make(services: services, logger: logger)
        logger.info("scheduler starting", metadata: [
            "database": "\(config.redacted)", "interval": "\(settings.interval.argumentText)",
            "notification_recovery": "\(serverAPI.isConfigured(environment) ? "on" : "off (no App Store Server API credentials)")"])
        try await group.run()
        pool.shutdown()
        await http.shutdown()
    }
}

/// The scheduler's own options: how often it works, and how long finished rows are kept.
struct SchedulerMaintenanceOptions: ParsableArguments {
    private static let defaults = Scheduler.Configuration()

    private static let recoveryDefaults = NotificationHistoryRecovery.Configuration()

    @Option(help: "With App Store Server API credentials: read Get Notification History this often to recover notifications we never received. Default: \(recoveryDefaults.interval.argumentText).")
    var notificationRecoveryInterval: Duration?

    @Option(help: "Time between ticks. Default: \(defaults.interval.argumentText).")
    var interval: Duration?

    @Option(help: "Rows per maintenance statement. Default: \(defaults.batchSize).")
    var batchSize: Int?

    @Option(help: "Delete jobs that ended granted, already_granted or resubmit this long after (the ledger keeps the purchase); 0s keeps them forever. Default: \((defaults.retention ?? .zero).argumentText).")
    var retention: Duration?

    @Option(help: "Keep receipts Apple rejected, and submissions of a purchase another account owns (replays), this long; 0s keeps them forever. Default: \((defaults.rejectedRetention ?? .zero).argumentText).")
    var rejectedRetention: Duration?

    @Option(help: "Keep receipts of failed jobs (gave up; re-drivable) this long; 0s keeps them forever. Default: 0s.")
    var failedRetention: Duration?

    @Option(help: "Keep events (the feed, webhook replay) this long; 0s keeps them forever. Default: \((defaults.eventRetention ?? .zero).argumentText).")
    var eventRetention: Duration?

    @Option(help: "Keep subscription corrections (receiptq.subscription_corrections: what status checks and history syncs found notifications had left wrong) this long; at least 24h; 0s keeps them forever. Default: \((defaults.correctionRetention ?? .zero).argumentText).")
    var correctionRetention: Duration?
}
