import CommandSupport
import AppStore
import ArgumentParser
import Foundation
import HTTPClient
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Worker

/// `receiptq worker`: verifies queued receipts with Apple. Scale out by running more of them,
/// on any number of machines; each needs a unique `--name` (default: host-pid).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Claim receipts, verify them with Apple, grant each purchase exactly once.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Verifications in flight at most. Default: $RECEIPTQ_WORKER_CONCURRENCY or 2000.")
    var concurrency: Int?

    @Option(help: "Worker name in locked_by (unique per process). Default: host-pid.")
    var name: String?

    @Option(help: "Apple production verifyReceipt URL. Default: $RECEIPTQ_APPLE_PRODUCTION_URL or Apple's.")
    var appleProductionURL: String?

    @Option(help: "Apple sandbox verifyReceipt URL. Default: $RECEIPTQ_APPLE_SANDBOX_URL or Apple's.")
    var appleSandboxURL: String?

    @Option(name: .customLong("bundle-ids"), help: "Comma-separated bundle ids of your apps (required). Default: $RECEIPTQ_BUNDLE_IDS.")
    var bundleIDs: String?

    @Option(help: "Time allowed for one call to Apple before the job is marked timed_out.")
    var appleTimeout: Duration = .seconds(15)

    @Option(help: "How long a claimed job is this worker's (must exceed two Apple calls).")
    var lease: Duration = .seconds(60)

    @Option(help: "Look at the queue this often even without a notification.")
    var pollInterval: Duration = .seconds(1)

    @Option(help: "On SIGTERM, time for in-flight verifications before the rest are released.")
    var shutdownDeadline: Duration = .seconds(20)

    @Option(help: "After a lull, a large claim sends 20 requests first and the rest only if Apple has not failed them this long after (0: never wait).")
    var canaryWindow: Duration = .milliseconds(500)

    @Option(help: "Give up on Apple-side trouble this long after enqueue.")
    var retryDeadline: Duration = .seconds(72 * 3600)

    @Option(help: "Give up after this many attempts.")
    var maxAttempts = 1000

    @Option(help: "Attempts for answers that may mean a bad receipt (21002) before rejecting.")
    var boundedAttempts = 3

    @Option(help: "PEM file of CAs to verify Apple's TLS certificate (default: the system's).")
    var caBundle: String?

    @Option(help: "Serve Prometheus metrics on this port at /metrics (0: off). Default: $RECEIPTQ_METRICS_PORT or 0.")
    var metricsPort: Int?

    @Option(help: "Address for the metrics endpoint.")
    var metricsHost = "127.0.0.1"

    @Flag(help: "Reject receipts verified in Apple's sandbox (default: accept and mark environment=Sandbox). Or $RECEIPTQ_REJECT_SANDBOX=1.")
    var rejectSandbox = false

    @Flag(help: "Allow one original transaction to be granted to several users (default: reject 'owned by another account').")
    var allowSharedOriginalTransactions = false

    func validate() throws {
        if let concurrency, !(1...100_000).contains(concurrency) { throw ValidationError("--concurrency must be 1…100000") }
        guard appleTimeout > .zero else { throw ValidationError("--apple-timeout must be positive") }
        guard lease > appleTimeout * 2 + .seconds(5) else {
            throw ValidationError("--lease must exceed twice --apple-timeout plus 5 s (an environment switch makes two calls)")
        }
        guard canaryWindow >= .zero, canaryWindow < .seconds(10) else { throw ValidationError("--canary-window must be within [0, 10s)") }
        guard boundedAttempts > 0, maxAttempts > 0 else { throw ValidationError("--bounded-attempts and --max-attempts must be positive") }
    }

    func run() async throws {
        let logger = LogSetup.bootstrap(label: "receiptq.worker")
        let environment = ProcessInfo.processInfo.environment
        let bundles = Set((bundleIDs ?? environment["RECEIPTQ_BUNDLE_IDS"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        guard !bundles.isEmpty else {
            throw ConfigurationError("--bundle-ids / RECEIPTQ_BUNDLE_IDS is required: the bundle ids of your apps (receipts of other apps are rejected)")
        }
        let slots: Int
        if let concurrency {
            slots = concurrency
        } else if let text = environment["RECEIPTQ_WORKER_CONCURRENCY"] {
            guard let value = Int(text), (1...100_000).contains(value) else {
                throw ConfigurationError("RECEIPTQ_WORKER_CONCURRENCY must be a number 1…100000")
            }
            slots = value
        } else {
            slots = 2000
        }
        let workerName = name ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        let databaseConfiguration = try database.configuration(applicationName: "receiptq-worker-\(getpid())")
        let acceptSandbox = !(rejectSandbox || ["1", "true", "yes"].contains(environment["RECEIPTQ_REJECT_SANDBOX"]?.lowercased() ?? ""))

        var retry = RetryPolicy()
        retry.deadline = retryDeadline
        retry.maxAttempts = maxAttempts
        var settings = WorkerConfiguration(
            name: workerName,
            decision: AttemptDecision(rules: .init(bundleIDs: bundles, acceptSandbox: acceptSandbox),
                                      retryPolicy: retry, boundedAttempts: boundedAttempts))
        settings.concurrency = slots
        settings.lease = lease
        settings.pollInterval = pollInterval
        settings.shutdownDeadline = shutdownDeadline
        settings.canaryWindow = canaryWindow
        settings.writer.enforceOwner = !allowSharedOriginalTransactions

        // Every in-flight verification holds a socket; running out shows up as connect failures.
        FileDescriptorLimit.raise(to: slots + 1024, logger: logger)
        let http = HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: slots, defaultTimeout: appleTimeout, caBundlePath: caBundle, maxIdleEasyHandles: slots))
        let verifier = VerifyReceiptClient(httpClient: http, configuration: VerifyReceiptClientConfiguration(
            productionURL: appleProductionURL ?? environment["RECEIPTQ_APPLE_PRODUCTION_URL"] ?? "https://buy.itunes.apple.com/verifyReceipt",
            sandboxURL: appleSandboxURL ?? environment["RECEIPTQ_APPLE_SANDBOX_URL"] ?? "https://sandbox.itunes.apple.com/verifyReceipt",
            sharedSecret: environment["RECEIPTQ_SHARED_SECRET"].flatMap { $0.isEmpty ? nil : $0 },
            requestTimeout: appleTimeout))
        let pool = PostgresPool(configuration: databaseConfiguration, size: 3, logger: logger)
        let worker = ReceiptWorker(configuration: settings, pool: pool, database: databaseConfiguration,
                                   verifier: verifier, logger: logger)
        logger.info("worker configuration", metadata: [
            "database": "\(databaseConfiguration.redacted)", "bundle_ids": "\(bundles.sorted())",
            "accept_sandbox": "\(acceptSandbox)", "shared_secret": "\(environment["RECEIPTQ_SHARED_SECRET"]?.isEmpty == false ? "set" : "not set")",
        ])
        var services: [any Service] = [worker]
        let port = metricsPort ?? environment["RECEIPTQ_METRICS_PORT"].flatMap { Int($0) } ?? 0
        guard (0...65_535).contains(port) else { throw ConfigurationError("--metrics-port / RECEIPTQ_METRICS_PORT must be 0…65535") }
        if port > 0 {
            services.append(MetricsEndpoint.bootstrap(host: metricsHost, port: port, logger: logger))
        }
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        pool.shutdown()
        await http.shutdown()
    }
}
