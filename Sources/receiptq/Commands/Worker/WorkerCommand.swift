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
/// Each option overrides its environment variable, which overrides `WorkerConfiguration`'s
/// default (the only place defaults are written).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim receipts, verify them with Apple, grant each purchase exactly once.")

    private static let defaults = WorkerConfiguration.defaults

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var serverAPI: ServerAPIOptions
    @OptionGroup var admin: AdminOptions

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

    @Option(help: "How receipts are verified: verify-receipt; server-api (the receipt verified on this machine and found to hold the client's transaction, then that transaction through Get Transaction Info; a receipt this machine cannot confirm through verifyReceipt; needs credentials and --receipt-check local; local+server-api is its earlier name); or auto (server-api when credentials are configured and --receipt-check is local, else verify-receipt). Or $RECEIPTQ_RECEIPT_VERIFIER. Default: auto.")
    var receiptVerifier: ReceiptVerifier?

    @Flag(help: "Grant a new purchase only when an appAccountToken Apple signed names one of your orders (family-shared purchases exempt); one without is held in failed for review, never granted to whoever submits it. Or $RECEIPTQ_REQUIRE_APP_ACCOUNT_TOKEN=1. Default: off (the first submitter with proof owns a purchase without such a token).")
    var requireAppAccountToken = false

    @Option(help: "local: verify each receipt on this machine first and reject, without asking Apple, one that provably is not Apple's for --bundle-ids (a receipt we merely cannot confirm still goes to Apple); off: send every receipt to Apple. Or $RECEIPTQ_RECEIPT_CHECK. Default: local.")
    var receiptCheck: ReceiptCheckMode?

    @Flag(help: "Also confirm each StoreKit 2 signed transaction with Get Transaction Info (Apple's current view; costs rate budget).")
    var confirmSignedTransactions = false

    @Option(help: "App Store Server API lookups in flight at most. Default: 200.")
    var serverAPIConcurrency: Int?

    @Option(name: .customLong("bundle-ids"), help: "Comma-separated bundle ids of your apps (required). Or $RECEIPTQ_BUNDLE_IDS.")
    var bundleIDs: String?

    @Option(help: "Worker name in locked_by (unique per process). Default: host-pid.")
    var name: String?

    @Option(help: "Verifications in flight at most. Or $RECEIPTQ_WORKER_CONCURRENCY. Default: \(defaults.concurrency).")
    var concurrency: Int?

    @Option(help: "Apple production verifyReceipt URL. Or $RECEIPTQ_APPLE_PRODUCTION_URL. Default: \(defaults.apple.productionURL).")
    var appleProductionURL: String?

    @Option(help: "Apple sandbox verifyReceipt URL. Or $RECEIPTQ_APPLE_SANDBOX_URL. Default: \(defaults.apple.sandboxURL).")
    var appleSandboxURL: String?

    @Option(help: "Time allowed for one call to Apple before the job is marked timed_out. Default: \(defaults.apple.requestTimeout.argumentText).")
    var appleTimeout: Duration?

    @Option(help: "How long a claimed job is this worker's (must exceed two Apple calls plus 5 s). Default: \(defaults.lease.argumentText).")
    var lease: Duration?

    @Option(help: "Look at the queue this often even without a notification. Default: \(defaults.pollInterval.argumentText).")
    var pollInterval: Duration?

    @Option(help: "On SIGTERM, time for in-flight verifications (and lookups, deliveries) before the rest are released; the process exits about a second after. Default: \(defaults.shutdownDeadline.argumentText).")
    var shutdownDeadline: Duration?

    @Option(help: "After a lull, a large claim sends 20 requests first and the rest only if Apple has not failed them this long after (0s: never wait). Default: \(defaults.canaryWindow.argumentText).")
    var canaryWindow: Duration?

    @Option(help: "Give up on Apple-side trouble this long after enqueue. Default: \(defaults.retry.budget.deadline.argumentText).")
    var retryDeadline: Duration?

    @Option(help: "Give up after this many attempts. Default: \(defaults.retry.budget.maxAttempts).")
    var maxAttempts: Int?

    @Option(help: "Retry answers that may mean a bad receipt (21002) this long, then give the job up into failed (never rejected). Default: \(defaults.doubtWindow.argumentText).")
    var doubtWindow: Duration?

    @Option(help: "21004 answers (shared secret refused) for one receipt before it is given up into failed. Default: \(defaults.secretMismatchAttempts).")
    var secretMismatchAttempts: Int?

    @Option(help: "Ask Apple again about a verification unanswered past the recent p99, for at most this share of requests (0: never). Default: \(HedgePolicy().maxShare).")
    var hedgeShare: Double?

    @Option(help: "Webhook deliveries in flight at most (0: this worker delivers none). Or $RECEIPTQ_WEBHOOK_CONCURRENCY. Default: \(WebhookDelivererConfiguration(name: "").concurrency).")
    var webhookConcurrency: Int?

    @Option(help: "What Apple hears as your refund preference when it asks about a refund request (Send Consumption Information v2, with App Store Server API credentials): decline (refunds of purchases the ledger shows delivered; an undelivered one gets no preference), grant (a full refund), or no-preference. Or $RECEIPTQ_REFUND_PREFERENCE. Default: no-preference.")
    var refundPreference: String?

    @Option(help: "PEM file of the CAs that verify Apple's TLS certificate: only these are trusted (default: the system's).")
    var caBundle: String?

    @Option(help: "Older name of --admin-port (and $RECEIPTQ_METRICS_PORT of $RECEIPTQ_ADMIN_PORT).")
    var metricsPort: Int?

    @Option(help: "Older name of --admin-host.")
    var metricsHost: String?

    @Flag(help: "Reject receipts verified in Apple's sandbox (default: accept and mark environment=Sandbox). Or $RECEIPTQ_REJECT_SANDBOX=1.")
    var rejectSandbox = false

    /// The configuration from options, then the environment, then the defaults; validated.
    func settings(_ environment: EnvironmentReader) throws -> WorkerConfiguration {
        var settings = WorkerConfiguration(
            name: name ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())",
            bundleIDs: Set(bundleIDs.map(EnvironmentReader.split) ?? environment.list("RECEIPTQ_BUNDLE_IDS") ?? []))
        settings.concurrency = try concurrency ?? environment.int("RECEIPTQ_WORKER_CONCURRENCY", in: 1...100_000) ?? settings.concurrency
        settings.acceptSandbox = !(try rejectSandbox || environment.flag("RECEIPTQ_REJECT_SANDBOX") == true)
        settings.apple.productionURL = appleProductionURL ?? environment.string("RECEIPTQ_APPLE_PRODUCTION_URL") ?? settings.apple.productionURL
        settings.apple.sandboxURL = appleSandboxURL ?? environment.string("RECEIPTQ_APPLE_SANDBOX_URL") ?? settings.apple.sandboxURL
        settings.apple.sharedSecret = try environment.secret("RECEIPTQ_SHARED_SECRET")
        settings.apple.requestTimeout = appleTimeout ?? settings.apple.requestTimeout
        settings.lease = lease ?? settings.lease
        settings.pollInterval = pollInterval ?? settings.pollInterval
        settings.shutdownDeadline = shutdownDeadline ?? settings.shutdownDeadline
        settings.canaryWindow = canaryWindow ?? settings.canaryWindow
        settings.retry.budget.deadline = retryDeadline ?? settings.retry.budget.deadline
        settings.retry.budget.maxAttempts = maxAttempts ?? settings.retry.budget.maxAttempts
        settings.doubtWindow = doubtWindow ?? settings.doubtWindow
        settings.secretMismatchAttempts = secretMismatchAttempts ?? settings.secretMismatchAttempts
        settings.writer.ownership.requireAppAccountToken = try requireAppAccountToken
            || environment.flag("RECEIPTQ_REQUIRE_APP_ACCOUNT_TOKEN") == true
        if let hedgeShare {
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

    /// `--refund-preference`, else `RECEIPTQ_REFUND_PREFERENCE`, else no preference.
    func refundPreferencePolicy(_ environment: EnvironmentReader) throws -> RefundPreferencePolicy {
        guard let text = refundPreference ?? environment.string("RECEIPTQ_REFUND_PREFERENCE") else { return .noPreference }
        guard let policy = RefundPreferencePolicy(rawValue: text) else {
            throw ConfigurationError("--refund-preference / RECEIPTQ_REFUND_PREFERENCE must be decline, grant or no-preference, not \(text)")
        }
        return policy
    }

    func run() async throws {
        let environment = EnvironmentReader()
        var settings = try settings(environment)
        let roots = try serverAPI.trustedRoots(environment)
        settings.writer.ownership.testRoots = roots.areTestRoots
        let refundPolicy = try refundPreferencePolicy(environment)
        let logger = LogSetup.bootstrap(label: "receiptq.worker")
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
        webhooks.concurrency = try webhookConcurrency ?? environment.int("RECEIPTQ_WEBHOOK_CONCURRENCY", in: 0...100_000) ?? webhooks.concurrency
        do { try webhooks.validate() } catch { throw ConfigurationError("\(error)") }
        // Every in-flight verification and delivery holds a socket; running out shows up as connect failures.
        FileDescriptorLimit.raise(to: settings.concurrency + webhooks.concurrency + 1024, logger: logger)
        let http = HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: settings.concurrency, defaultTimeout: settings.apple.requestTimeout, caBundlePath: caBundle,
            maxIdleEasyHandles: settings.concurrency))
        let verifier = VerifyReceiptClient(httpClient: http, configuration: settings.apple)
        let pool = PostgresPool(configuration: databaseConfiguration, size: 3, logger: logger)
        let receiptCheck = try ReceiptCheckMode.resolve(self.receiptCheck, environment)
        let localReceipts = receiptCheck == .local
            ? try ReceiptCheckMode.verifier(bundleIds: settings.bundleIDs, roots: serverAPI.trustedRoots(environment)) : nil
        let worker = ReceiptWorker(configuration: settings, pool: pool, database: databaseConfiguration,
                                   verifier: verifier, localReceipts: localReceipts, logger: logger)

        // StoreKit 2 signed transactions (always, locally) and App Store Server API lookups (with credentials).
        let chosen = try receiptVerifier ?? environment.string("RECEIPTQ_RECEIPT_VERIFIER").map {
            guard let value = ReceiptVerifier(rawValue: $0) else {
                throw ConfigurationError("RECEIPTQ_RECEIPT_VERIFIER must be verify-receipt, server-api, local+server-api or auto")
            }
            return value
        } ?? .auto
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
        let serverHTTP = HTTPClient(configuration: HTTPClientConfiguration(maxTotalConnections: 256, caBundlePath: caBundle))
        let rateBudgetPool = PostgresPool(configuration: databaseConfiguration, size: 2, logger: logger)
        if serverAPIConfigured {
            serverClients = try ServerAPIWiring.clients(try serverAPI.settings(environment), http: serverHTTP, budgetPool: rateBudgetPool)
        }
        var runnerSettings = TransactionJobRunner.Configuration(name: settings.name, receiptsThroughServerAPI: receiptsThroughServerAPI,
                                                                lease: settings.lease)
        runnerSettings.serverAPIConcurrency = serverAPIConcurrency ?? runnerSettings.serverAPIConcurrency
        runnerSettings.shutdownDeadline = settings.shutdownDeadline
        runnerSettings.decision = TransactionDecision(acceptSandbox: settings.acceptSandbox, retryPolicy: settings.retry,
                                                      receipts: settings.decision)
        runnerSettings.writer.ownership = settings.writer.ownership
        let runner = TransactionJobRunner(
            configuration: runnerSettings, pool: pool, database: databaseConfiguration,
            checker: TransactionChecker(verifier: transactionVerifier, serverAPI: serverClients,
                                        confirmSignedTransactions: confirmSignedTransactions,
                                        localReceipts: localReceipts, receipts: verifier),
            lifecycle: settings.lifecycle, logger: logger)
        // App Store Server Notifications the API committed: applied in Apple's order, verified again.
        let notificationPool = PostgresPool(configuration: databaseConfiguration, size: 5, logger: logger)
        let notifications = NotificationRunner(configuration: NotificationRunner.Configuration(
            name: settings.name, lease: settings.lease, shutdownDeadline: settings.shutdownDeadline),
                                               pool: notificationPool, database: databaseConfiguration,
                                               verifier: transactionVerifier, logger: logger)
        // Receivers get an HTTP client and connections of their own: a slow backend never takes Apple's.
        let webhookHTTP = HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: max(16, webhooks.concurrency), defaultTimeout: webhooks.requestTimeout, caBundlePath: caBundle))
        let webhookPool = PostgresPool(configuration: databaseConfiguration, size: 2, logger: logger)
        let deliverer = WebhookDeliverer(configuration: webhooks, pool: webhookPool, database: databaseConfiguration,
                                         http: webhookHTTP, logger: logger)
        logger.info("worker configuration", metadata: [
            "database": "\(databaseConfiguration.redacted)", "bundle_ids": "\(settings.bundleIDs.sorted())",
            "accept_sandbox": "\(settings.acceptSandbox)", "shared_secret": "\(settings.apple.sharedSecret == nil ? "not set" : "set")",
            "receipts_verified_by": "\(receiptsThroughServerAPI ? "App Store Server API" : "verifyReceipt")",
            "receipt_check": "\(receiptCheck.rawValue)",
            "require_app_account_token": "\(settings.writer.ownership.requireAppAccountToken)",
            "server_api": "\(serverAPIConfigured ? "configured" : "not configured")", "refund_preference": "\(refundPolicy.rawValue)",
        ])
        var work: [any Service] = receiptsThroughServerAPI ? [runner, notifications, deliverer] : [worker, runner, notifications, deliverer]
        if let serverClients {
            // Apple's CONSUMPTION_REQUESTs are answered only with App Store Server API credentials.
            work.append(ConsumptionResponder(configuration: ConsumptionResponder.Configuration(
                name: settings.name, refundPreference: refundPolicy, shutdownDeadline: settings.shutdownDeadline),
                                             pool: notificationPool, clients: serverClients, logger: logger))
        }
        // On SIGTERM the work stops together, each part draining within --shutdown-deadline; the
        // admin listener (shut down after it) answers probes and scrapes until then.
        var services: [any Service] = [ConcurrentServices(work)]
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
