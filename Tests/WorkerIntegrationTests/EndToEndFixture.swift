import AppleSignedData
import AppStore
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import ServiceLifecycle
import Worker

let bundleID = "com.example.app"

/// A migrated database, the fake App Store on loopback, and workers (in-process or as
/// `receiptq worker` processes) — the whole pipeline with real parts.
struct EndToEnd {
    let database: ScratchDatabase
    /// The test's own connections (the owner): set-up and checks.
    let pool: PostgresPool
    let queue: JobQueue
    let fake: FakeAppStoreServer
    /// How workers and schedulers log in, in process and as child processes: with their roles
    /// only, so a grant they lack fails the test.
    let workerDatabase: PostgresConfiguration
    let workerURL: String
    let schedulerURL: String

    static func make(fake configuration: FakeAppStoreConfiguration) async throws -> EndToEnd {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: 4)
        let fake = try await FakeAppStoreServer.start(configuration: configuration)
        return EndToEnd(database: database, pool: pool, queue: JobQueue(pool: pool), fake: fake,
                        workerDatabase: try await database.configuration(as: .worker),
                        workerURL: try await database.connectionString(as: .worker),
                        schedulerURL: try await database.connectionString(as: .scheduler))
    }

    /// A receipt the fake understands, holding `transactions` (id, product).
    static func receipt(_ transactions: [(String, String)], environment: FakeReceipt.Environment = .production,
                        forcedStatus: Int? = nil, original: String? = nil, bundle: String = bundleID) -> String {
        FakeReceipt(bundleID: bundle, environment: environment,
                    inApp: transactions.map { FakeTransaction(transactionID: $0.0, originalTransactionID: original ?? $0.0, productID: $0.1) },
                    forcedStatus: forcedStatus).base64()
    }

    /// A worker configuration with test-sized delays (retries after ~50–100 ms).
    func workerConfiguration(name: String, concurrency: Int = 200) -> WorkerConfiguration {
        var configuration = WorkerConfiguration(
            name: name, bundleIDs: [bundleID], retry: RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(2)),
            apple: VerifyReceiptClientConfiguration(productionURL: fake.productionURL, sandboxURL: fake.sandboxURL))
        configuration.concurrency = concurrency
        configuration.lease = .seconds(30)
        configuration.pollInterval = .milliseconds(200)
        configuration.breaker.openDuration = .milliseconds(500)
        configuration.breaker.maxOpenDuration = .seconds(2)
        configuration.shutdownDeadline = .seconds(5)
        return configuration
    }

    /// Runs an in-process worker until the returned handle is stopped. `timeout`: Apple's request
    /// timeout, production's default (15 s). The fake answers in milliseconds, so only a starved
    /// machine reaches it; a shorter one timed requests out beside the whole suite on two cores,
    /// and a timed-out job waits for a scheduler most tests do not run. Tests of hangs set their own.
    func startWorker(_ configuration: WorkerConfiguration, sharedSecret: String? = nil, timeout: Duration = .seconds(15),
                     logs: CapturedLogs? = nil, localReceipts: AppReceiptVerifier? = nil) -> RunningWorker {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: timeout))
        let verifier = VerifyReceiptClient(httpClient: http, configuration: VerifyReceiptClientConfiguration(
            productionURL: fake.productionURL, sandboxURL: fake.sandboxURL, sharedSecret: sharedSecret, requestTimeout: timeout))
        let workerPool = PostgresPool(configuration: workerDatabase, size: 3)
        var logger = logs.map { logs in Logger(label: "test-worker") { _ in CapturingLogHandler(logs: logs) } } ?? Logger(label: "test-worker")
        logger.logLevel = .warning
        let worker = ReceiptWorker(configuration: configuration, pool: workerPool, database: workerDatabase,
                                   verifier: verifier, localReceipts: localReceipts, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [worker], logger: logger))
        let task = Task { try await group.run() }
        return RunningWorker(worker: worker, group: group, task: task, pool: workerPool, http: http)
    }

    /// Runs a webhook deliverer (as `receiptq worker` does) with test-sized retry delays.
    func startDeliverer(name: String = "deliverer", concurrency: Int = 200,
                        configure: (inout WebhookDelivererConfiguration) -> Void = { _ in }) -> RunningDeliverer {
        var configuration = WebhookDelivererConfiguration(name: name, concurrency: concurrency, requestTimeout: .seconds(2),
                                                          pollInterval: .milliseconds(200), endpointRefresh: .seconds(1),
                                                          shutdownDeadline: .seconds(2))
        configuration.lease = .seconds(10)
        configuration.decision = DeliveryDecision(retry: RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1)))
        configuration.breaker.openDuration = .milliseconds(300)
        configuration.breaker.maxOpenDuration = .seconds(1)
        configure(&configuration)
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(2)))
        let pool = PostgresPool(configuration: workerDatabase, size: 2)
        var logger = Logger(label: "test-deliverer")
        logger.logLevel = .error
        let deliverer = WebhookDeliverer(configuration: configuration, pool: pool, database: workerDatabase, http: http, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [deliverer], logger: logger))
        return RunningDeliverer(group: group, task: Task { try await group.run() }, pool: pool, http: http)
    }

    /// Runs the scheduler in process, as its own login, ticking every `interval`: production
    /// always has one, and a run that loads this machine times verifications out (`timed_out`
    /// waits for the scheduler to queue it again).
    func startScheduler(interval: Duration = .milliseconds(300)) async throws -> RunningScheduler {
        var logger = Logger(label: "test-scheduler")
        logger.logLevel = .error
        let scheduler = Scheduler(database: try await database.configuration(as: .scheduler),
                                  configuration: Scheduler.Configuration(interval: interval), logger: logger)
        let group = ServiceGroup(configuration: .init(services: [scheduler], logger: logger))
        return RunningScheduler(group: group, task: Task { try await group.run() })
    }

    /// Waits until no job is queued, verifying or timed out.
    func waitUntilDrained(timeout: Duration) async throws -> Bool {
        try await eventually(timeout: timeout, every: .milliseconds(200)) {
            // queue_depth reads partial indexes only: polling must not compete with the workers.
            try await count("SELECT coalesce(sum(jobs), 0)::bigint AS count FROM receiptq.queue_depth") == 0
        }
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode("count", as: Int.self)
    }

    func states() async throws -> [String: Int] {
        var result: [String: Int] = [:]
        for row in try await pool.query("SELECT state, count(*) AS count FROM receiptq.jobs GROUP BY state") {
            result[try row.decode("state")] = try row.decode("count")
        }
        return result
    }

    func shutdown() async {
        await fake.stop()
        pool.shutdown()
    }
}

struct RunningWorker {
    let worker: ReceiptWorker
    let group: ServiceGroup
    let task: Task<Void, Error>
    let pool: PostgresPool
    let http: HTTPClient

    /// Graceful stop, as on SIGTERM.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        pool.shutdown()
        await http.shutdown()
    }
}

struct RunningScheduler {
    let group: ServiceGroup
    let task: Task<Void, Error>

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

struct RunningDeliverer {
    let group: ServiceGroup
    let task: Task<Void, Error>
    let pool: PostgresPool
    let http: HTTPClient

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        pool.shutdown()
        await http.shutdown()
    }
}

/// What a worker logged, for tests of its alerts.
final class CapturedLogs: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(level: Logger.Level, message: String, metadata: String)] = []

    func append(_ level: Logger.Level, _ message: String, _ metadata: String) {
        lock.withLock { entries.append((level, message, metadata)) }
    }

    func at(_ level: Logger.Level) -> [(message: String, metadata: String)] {
        lock.withLock { entries.filter { $0.level == level }.map { ($0.message, $0.metadata) } }
    }
}

struct CapturingLogHandler: LogHandler {
    let logs: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        logs.append(event.level, event.message.description, "\((event.metadata ?? [:]).merging(self.metadata) { $1 })")
    }
}
