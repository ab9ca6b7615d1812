import Logging
import Synchronization
import Postgres
import ReceiptQueue

/// `/readyz` for every process: the public listener, if the process has one, is bound
/// (`ListenerGate`); the database answers on a connection of the probe's own (never the pool
/// that serves receipts or claims, so a busy pool cannot fail the probe and probes cannot take
/// its connections) and, given the migrations this build knows, every one is applied. Cached by
/// `ReadinessCache`; a check that takes longer than `timeout` is not ready.
public actor ReadinessProbe {
    private let pool: PostgresPool
    private let migrations: [Migration]?
    private let listener: ListenerGate?
    private let timeout: Duration
    private let logger: Logger
    private var cache: ReadinessCache<ContinuousClock.Instant>
    private var running: Task<Readiness, Never>?

    /// - Parameters:
    ///   - migrations: nil checks only that the database answers.
    ///   - listener: the public listener's gate (the API's); not ready until it is open.
    ///   - timeout: a check slower than this answers not ready. Default 2 s (under a kubelet's
    ///     usual 3 s probe timeout).
    public init(database: PostgresConfiguration, migrations: [Migration]? = nil, listener: ListenerGate? = nil,
                lifetime: Duration = .seconds(1), timeout: Duration = .seconds(2), logger: Logger) {
        var configuration = database
        configuration.applicationName += "-readiness"
        configuration.connectTimeoutSeconds = max(1, Int(timeout.components.seconds))
        self.pool = PostgresPool(configuration: configuration, size: 1, name: "readiness", logger: logger)
        self.migrations = migrations
        self.listener = listener
        self.timeout = timeout
        self.logger = logger
        self.cache = ReadinessCache(lifetime: lifetime)
    }

    public func check() async -> Readiness {
        if let listener, !listener.isOpen { return .notReady("the public listener is not accepting connections yet") }
        switch cache.next(now: .now) {
        case .answer(let readiness):
            return readiness
        case .join:
            if let running { return await running.value }
            return .notReady("readiness check lost")
        case .check:
            let task = Task { await self.checkNow() }
            running = task
            let readiness = await task.value
            cache.finished(readiness, now: .now)
            running = nil
            return readiness
        }
    }

    /// Closes the probe's connection.
    public func shutdown() { pool.shutdown() }

    /// The database check raced against `timeout`. Unstructured on purpose: a libpq call cannot
    /// be cancelled, and a task group would wait for a hung one; the probe's own connection stays
    /// busy until the database answers, and checks meanwhile time out (not ready), as they should.
    private func checkNow() async -> Readiness {
        let migrations = self.migrations, pool = self.pool, timeout = self.timeout
        let readiness = await withCheckedContinuation { (continuation: CheckedContinuation<Readiness, Never>) in
            let answered = FirstAnswer()
            let answer: @Sendable (Readiness) -> Void = { readiness in
                if answered.take() { continuation.resume(returning: readiness) }
            }
            Task {
                do {
                    let pending = try await pool.withConnection { connection -> Int in
                        guard let migrations else {
                            try connection.query("SELECT 1")
                            return 0
                        }
                        return try Migrator.pending(migrations, on: connection).count
                    }
                    answer(pending == 0 ? .ready : .notReady("\(pending) migrations are not applied; run receiptq migrate"))
                } catch {
                    answer(.notReady("the database cannot be reached"))
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                answer(.notReady("the database did not answer within \(timeout.components.seconds) s"))
            }
        }
        if !readiness.isReady { logger.warning("not ready", metadata: ["reason": "\(readiness.reason ?? "")"]) }
        return readiness
    }
}

/// True for the first caller of `take()` only: the check and its timeout race to answer once.
private final class FirstAnswer: Sendable {
    private let taken = Mutex(false)

    func take() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}
