import AppStore
import AppleSignedData
import AppStoreServerAPI
import ArgumentParser
import CommandSupport
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Worker

/// `receiptq worker`: verifies queued receipts with Apple. Scale out by running more of them,
/// on any number of machines; each needs a unique `--name` (default: host-pid).
///
/// Each option overrides its environment variable (`RECEIPTQ_` + the flag's name, added by
/// `EnvironmentArguments`), which overrides `WorkerConfiguration`'s default (the only place
/// defaults are written).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim receipts, verify them with Apple, grant each purchase exactly once.")

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "Verifying with Apple") var apple: WorkerAppleOptions
    @OptionGroup(title: "App Store Server API and signed data") var serverAPI: ServerAPIOptions
    @OptionGroup(title: "Retry budget (shared with the scheduler)") var retry: RetryBudgetOptions
    @OptionGroup(title: "Capacity and timing") var capacity: WorkerCapacityOptions
    @OptionGroup(title: "Verdict policy") var policy: WorkerPolicyOptions
    @OptionGroup(title: "Admin listener") var admin: AdminOptions
    @OptionGroup(title: "Tracing") var tracing: TracingOptions

    enum ReceiptVerifier: String, ExpressibleByArgument, CaseIterable {
        /// Apple's verifyReceipt (deprecated by Apple).
        case verifyReceipt = "verify-receipt"
        /// The receipt verified locally and found to hold the client's transaction, then that
        /// transaction through the App Store Server API; a receipt this machine cannot confirm
        /// through verifyReceipt. The receipt always proves the transaction first.
        case serverAPI = "server-api"
        /// The earlier name of `server-api`.
        case localServerAPI = "local+server-api"
        /// server-api when App Store Server API credentials are configured and receipts are
        /// checked locally, else verify-receipt: never a mode whose proof is weaker.
        case auto
    }

    /// Older spellings of `--admin-port` / `--admin-host` (`RECEIPTQ_METRICS_PORT` too): hidden, warned.
    @Option(help: .hidden)
    var metricsPort: Int?

    @Option(help: .hidden)
    var metricsHost: String?

    func validate() throws {
        if metricsPort != nil { DeprecatedSpelling.warn("--metrics-port", instead: "--admin-port") }
        if metricsHost != nil { DeprecatedSpelling.warn("--metrics-host", instead: "--admin-host") }
    }

    /// The configuration from options, then the environment, then the defaults; validated.
    func settings(_ environment: EnvironmentReader) throws -> WorkerConfiguration {
        var settings = WorkerConfiguration(
            name: capacity.name ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())",
            bundleIDs: Set(serverAPI.bundleIdList(environment)))
        settings.concurrency = capacity.concurrency ?? settings.concurrency
        settings.acceptSandbox = !policy.rejectSandbox
        settings.apple.productionURL = apple.appleProductionURL ?? settings.apple.productionURL
        settings.apple.sandboxURL = apple.appleSandboxURL ?? settings.apple.sandboxURL
        settings.apple.sharedSecret = try environment.secret("RECEIPTQ_SHARED_SECRET")
        settings.apple.requestTimeout = apple.appleTimeout ?? settings.apple.requestTimeout
        settings.lease = capacity.lease ?? settings.lease
        settings.pollInterval = capacity.pollInterval ?? settings.pollInterval
        settings.shutdownDeadline = capacity.shutdownDeadline ?? settings.shutdownDeadline
        settings.canaryWindow = capacity.canaryWindow ?? settings.canaryWindow
        settings.retry.budget = retry.budget(settings.retry.budget)
        settings.doubtWindow = policy.doubtWindow ?? settings.doubtWindow
        settings.secretMismatchAttempts = policy.secretMismatchAttempts ?? settings.secretMismatchAttempts
        settings.writer.ownership.requireAppAccountToken = policy.requireAppAccountToken
        if let hedgeShare = capacity.hedgeShare {
            guard (0...0.2).contains(hedgeShare) else { throw ConfigurationError("--hedge-share must be 0…0.2") }
            settings.hedging = hedgeShare == 0 ? nil : HedgePolicy(maxShare: hedgeShare)
        }
        do {
            try settings.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        return settings
    }

    /// History syncs' and status checks' settings (they run with App Store Server API credentials),
    /// validated whether or not credentials are configured.
    func subscriptionWork(_ settings: WorkerConfiguration) throws -> (HistorySyncRunner.Configuration, StatusReconciler.Configuration) {
        var syncs = HistorySyncRunner.Configuration(name: settings.name, lease: settings.lease, shutdownDeadline: settings.shutdownDeadline)
        syncs.concurrency = capacity.historySyncConcurrency ?? syncs.concurrency
        var checks = StatusReconciler.Configuration(name: settings.name, lease: settings.lease, shutdownDeadline: settings.shutdownDeadline)
        checks.concurrency = capacity.reconcileConcurrency ?? checks.concurrency
        checks.budgetShare = capacity.reconcileBudgetShare ?? checks.budgetShare
        do {
            try syncs.validate()
            try checks.validate()
        } catch {
            throw ConfigurationError("\(error)")
        }
        return (syncs, checks)
    }

    /// `--refund-preference` (or its variable), else no preference.
    func refundPreferencePolicy() throws -> RefundPreferencePolicy {
        guard let text = policy.refundPreference else { return .noPreference }
        guard let policy = RefundPreferencePolicy(rawValue: text) else {
            throw ConfigurationError("--refund-preference must be decline, grant or no-preference, not \(text)")
        }
        return policy
    }

    func run() async throws {
        let environment = EnvironmentReader()
        MallocArenas.limit(environment: environment)   // before the verifications allocate
        var settings = try settings(environment)
        let (historySyncs, statusChecks) = try subscriptionWork(settings)
        let roots = try serverAPI.trustedRoots(environment)
        settings.writer.ownership.testRoots = roots.areTestRoots
        let refundPolicy = try refundPreferencePolicy()
        let logger = LogSetup.bootstrap(label: "receiptq.worker")
        let exporter = try tracing.bootstrap(service: "receiptq-worker", logger: logger, environment: environment)
        let databaseConfiguration = try database.configuration(applicationName: "receiptq-worker-\(getpid())")
        var adminOptions = admin
        adminOptions.adminHost = admin.adminHost ?? metricsHost
        let adminSettings = try adminOptions.configuration(defaultPort: 0, legacyPort: metricsPort, legacyPortVariable: "RECEIPTQ_METRICS_PORT")

        // Before anything makes a metric: swift-metrics hands out a no-op for anything made before
        // the bootstrap (the gauges and timers the worker makes at start were never exported).
        let registry = adminSettings.isEnabled
            ? PrometheusBootstrap.metricsSystem(help: WorkerMetrics.help, buckets: WorkerMetrics.buckets) : nil
        roots.log(to: logger)
        if let registry { roots.export(to: registry) }

        var webhooks = WebhookDelivererConfiguration(name: settings.name)
        webhooks.shutdownDeadline = settings.shutdownDeadline
        webhooks.concurrency = capacity.webhookConcurrency ?? webhooks.concurrency
        do { try webhooks.validate() } catch { throw ConfigurationError("\(error)") }
        // Every in-flight verification and delivery holds a socket; running out shows up as connect failures.
        FileDescriptorLimit.raise(to: settings.concurrency + webhooks.concurrency + 1024, logger: logger)
        let http = HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: settings.concurrency, defaultTimeout: settings.apple.requestTimeout, caBundlePath: apple.caBundle,
            maxIdleEasyHandles: settings.concurrency))
        let verifier = VerifyReceiptClient(httpClient: http, configuration: settings.apple)
        let pool = PostgresPool(configuration: databaseConfiguration, size: 3, name: "jobs", logger: logger)
        let receiptCheck = try ReceiptCheckMode.resolve(apple.receiptCheck, environment)
        let localReceipts = receiptCheck == .local
            ? try ReceiptCheckMode.verifier(bundleIds: settings.bundleIDs, roots: serverAPI.trustedRoots(environment)) : nil
        // Every call out (Apple, webhook receivers), summed per minute into receiptq.call_minutes: the console's charts.
        let calls = CallRecorder()
        let worker = ReceiptWorker(configuration: settings, pool: pool, database: databaseConfiguration,
                                   verifier: verifier, localReceipts: localReceipts, calls: calls, logger: logger)

        // StoreKit 2 signed transactions (always, locally) and App Store Server API lookups (with credentials).
        let chosen = apple.receiptVerifier ?? .auto
        let serverAPIConfigured = serverAPI.isConfigured(environment)
        if (chosen == .serverAPI || chosen == .localServerAPI) && !serverAPIConfigured {
            throw ConfigurationError("--receipt-verifier \(chosen.rawValue) needs App Store Server API credentials (--app-store-key-file …)")
        }
        if (chosen == .serverAPI || chosen == .localServerAPI) && localReceipts == nil {
            throw ConfigurationError("""
                --receipt-verifier \(chosen.rawValue) verifies each receipt on this machine before it looks its transaction up: \
                it needs --receipt-check local (a transaction id alone proves nothing)
                """)
        }
        let receiptsThroughServerAPI = chosen == .serverAPI || chosen == .localServerAPI
            || (chosen == .auto && serverAPIConfigured && localReceipts != nil)
        let transactionVerifier = try serverAPI.transactionVerifier(bundleIds: settings.bundleIDs, acceptSandbox: true, environment,
                                                                    ocsp: OnlineRevocation.requester)
        var serverClients: ServerAPIClients?
        // Status checks: the same limiter, behind their own share of Get All Subscription Statuses.
        var statusCheckClients: ServerAPIClients?
        let serverHTTP = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 256, caBundlePath: apple.caBundle))
        let rateBudgetPool = PostgresPool(configuration: databaseConfiguration, size: 2, name: "rate-budget", logger: logger)
        if serverAPIConfigured {
            let api = try serverAPI.settings(environment)
            let limiter = ServerAPIWiring.limiter(api, budgetPool: rateBudgetPool)
            serverClients = try ServerAPIWiring.clients(api, http: serverHTTP, gate: limiter, calls: calls)
            statusCheckClients = try ServerAPIWiring.clients(api, http: serverHTTP, gate: BudgetShareGate(
                limiter: limiter, endpoint: .getAllSubscriptionStatuses, consumer: "reconciliation", share: statusChecks.budgetShare), calls: calls)
        }
        var runnerSettings = TransactionJobRunner.Configuration(name: settings.name, receiptsThroughServerAPI: receiptsThroughServerAPI,
                                                                lease: settings.lease)
        runnerSettings.serverAPIConcurrency = capacity.serverAPIConcurrency ?? runnerSettings.serverAPIConcurrency
        runnerSettings.shutdownDeadline = settings.shutdownDeadline
        runnerSettings.decision = TransactionDecision(acceptSandbox: settings.acceptSandbox, retryPolicy: settings.retry,
                                                      receipts: settings.decision)
        runnerSettings.writer.ownership = settings.writer.ownership
        let runner = TransactionJobRunner(
            configuration: runnerSettings, pool: pool, database: databaseConfiguration,
            checker: TransactionChecker(verifier: transactionVerifier, serverAPI: serverClients,
                                        confirmSignedTransactions: apple.confirmSignedTransactions,
                                        localReceipts: localReceipts, receipts: verifier),
            lifecycle: settings.lifecycle, calls: calls, logger: logger)
        // App Store Server Notifications the API committed: applied in Apple's order, verified again.
        let notificationPool = PostgresPool(configuration: databaseConfiguration, size: 5, name: "notifications", logger: logger)
        let notifications = NotificationRunner(configuration: NotificationRunner.Configuration(
            name: settings.name, lease: settings.lease, shutdownDeadline: settings.shutdownDeadline),
                                               pool: notificationPool, database: databaseConfiguration,
                                               verifier: transactionVerifier, logger: logger)
        // Receivers get an HTTP client and connections of their own: a slow backend never takes Apple's.
        let webhookHTTP = HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: max(16, webhooks.concurrency), defaultTimeout: webhooks.requestTimeout, caBundlePath: apple.caBundle))
        let webhookPool = PostgresPool(configuration: databaseConfiguration, size: 2, name: "webhooks", logger: logger)
        let deliverer = WebhookDeliverer(configuration: webhooks, pool: webhookPool, database: databaseConfiguration,
                                         http: webhookHTTP, calls: calls, logger: logger)
        logger.info("worker configuration", metadata: [
            "database": "\(databaseConfiguration.redacted)", "bundle_ids": "\(settings.bundleIDs.sorted())",
            "accept_sandbox": "\(settings.acceptSandbox)", "shared_secret": "\(settings.apple.sharedSecret == nil ? "not set" : "set")",
            "receipts_verified_by": "\(receiptsThroughServerAPI ? "App Store Server API" : "verifyReceipt")",
            "receipt_check": "\(receiptCheck.rawValue)",
            "require_app_account_token": "\(settings.writer.ownership.requireAppAccountToken)",
            "server_api": "\(serverAPIConfigured ? "configured" : "not configured")", "refund_preference": "\(refundPolicy.rawValue)",
        ])
        var work: [any Service] = receiptsThroughServerAPI ? [runner, notifications, deliverer] : [worker, runner, notifications, deliverer]
        // Its row in receiptq.worker_heartbeats: the list of live workers (console, receiptq support workers).
        work.append(WorkerHeartbeat(worker: settings.name, pool: webhookPool, logger: logger))
        work.append(CallMinutesWriter(process: settings.name, recorder: calls, pool: webhookPool, logger: logger))
        if let serverClients {
            // Apple's CONSUMPTION_REQUESTs are answered only with App Store Server API credentials.
            work.append(ConsumptionResponder(configuration: ConsumptionResponder.Configuration(
                name: settings.name, refundPreference: refundPolicy, shutdownDeadline: settings.shutdownDeadline),
                                             pool: notificationPool, clients: serverClients, logger: logger))
            // History syncs (restores, first sightings, `receiptq sync`): Transaction History v2 pages under the same budget.
            if historySyncs.concurrency > 0 {
                work.append(HistorySyncRunner(configuration: historySyncs, pool: notificationPool, clients: serverClients,
                                              verifier: transactionVerifier, logger: logger))
            }
            // Status reconciliation: Get All Subscription Statuses, due-first, within its share of that endpoint's budget.
            if let statusCheckClients, statusChecks.concurrency > 0 {
                work.append(StatusReconciler(configuration: statusChecks, pool: notificationPool, clients: statusCheckClients,
                                             verifier: transactionVerifier, logger: logger))
            }
        }
        // On SIGTERM the work stops together, each part draining within --shutdown-deadline; the
        // admin listener (shut down after it) answers probes and scrapes until then.
        var services: [any Service] = [ConcurrentServices(work)]
        // First, so it stops last (a service group stops in reverse order): the last spans go out.
        if let exporter { services.insert(exporter, at: 0) }
        if let registry {
            services.insert(AdminServer(configuration: adminSettings, registry: registry,
                                        readiness: ReadinessProbe(database: databaseConfiguration, logger: logger), logger: logger,
                                        facts: roots.readinessFacts), at: 0)
        }
        let group = ProcessServiceGroup.make(services: services, shutdownBudget: settings.shutdownDeadline + .seconds(1), logger: logger)
        try await group.run()
        pool.shutdown()
        webhookPool.shutdown()
        await http.shutdown()
        await webhookHTTP.shutdown()
        rateBudgetPool.shutdown()
        notificationPool.shutdown()
        await serverHTTP.shutdown()
    }
}
