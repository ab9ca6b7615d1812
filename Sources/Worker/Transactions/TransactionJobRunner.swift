import AppStoreServerAPI
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization

/// Verifies the jobs that need no verifyReceipt call, inside `receiptq worker`:
/// - StoreKit 2 signed transactions, locally (`TransactionChecker`): a batch is claimed and
///   verified at once — about a millisecond each, no call to Apple, no slot of Apple's budget;
/// - transaction ids (and, with `--receipt-verifier server-api`, receipts' transaction ids) with
///   the App Store Server API, up to `serverAPIConcurrency` in flight, each call waiting for the
///   fleet's rate budget, behind a circuit breaker of their own.
///
/// Each kind is claimed on its own (`ClaimBatch` by kind), so jobs waiting for Apple's budget
/// never hold up signed transactions or receipts. Outcomes go through the same fenced, batched
/// `OutcomeWriter` as receipts, so one purchase is one ledger row whichever way it arrived.
public final class TransactionJobRunner: Service, Sendable {
    public struct Configuration: Sendable {
        /// `locked_by` of its leases (the worker's name).
        public var name: String
        /// Signed transactions per claim. Default 500.
        public var signedBatch: Int
        /// App Store Server API lookups in flight at most; 0: this worker does none. Default 200.
        public var serverAPIConcurrency: Int
        /// Claim receipts too and verify the client's transaction id with the Server API instead
        /// of verifyReceipt (the receipt is kept for audit). Default false.
        public var receiptsThroughServerAPI: Bool
        /// Default 60 s.
        public var lease: Duration
        /// Default 1 s.
        public var pollInterval: Duration
        /// On SIGTERM, how long lookups in flight may finish before the rest are released (the
        /// worker's `--shutdown-deadline`). Default 3 s.
        public var shutdownDeadline: Duration
        public var decision: TransactionDecision
        public var breaker: CircuitBreakerConfiguration
        public var writer: OutcomeWriter.Configuration

        public init(name: String, signedBatch: Int = 500, serverAPIConcurrency: Int = 200, receiptsThroughServerAPI: Bool = false,
                    lease: Duration = .seconds(60), pollInterval: Duration = .seconds(1), shutdownDeadline: Duration = .seconds(3),
                    decision: TransactionDecision = TransactionDecision(), breaker: CircuitBreakerConfiguration = CircuitBreakerConfiguration(),
                    writer: OutcomeWriter.Configuration = OutcomeWriter.Configuration()) {
            self.name = name
            self.signedBatch = signedBatch
            self.serverAPIConcurrency = serverAPIConcurrency
            self.receiptsThroughServerAPI = receiptsThroughServerAPI
            self.lease = lease
            self.pollInterval = pollInterval
            self.shutdownDeadline = shutdownDeadline
            self.decision = decision
            self.breaker = breaker
            self.writer = writer
        }
    }

    public let configuration: Configuration
    private let queue: JobQueue
    private let database: PostgresConfiguration
    private let checker: TransactionChecker
    private let writer: OutcomeWriter
    private let logger: Logger
    /// One per loop (a `WakeSignal` has one waiter): NOTIFY wakes both, a finished lookup the server loop.
    private let signedWake = WakeSignal()
    private let serverWake = WakeSignal()
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var stopping = false
        var inFlight = 0
        var breaker: CircuitBreaker<ContinuousClock.Instant>
        var nextServerKind = 0
    }

    public init(configuration: Configuration, pool: PostgresPool, database: PostgresConfiguration, checker: TransactionChecker,
                lifecycle: JobLifecycle, metrics: WorkerMetrics = WorkerMetrics(), logger: Logger) {
        self.configuration = configuration
        self.queue = JobQueue(pool: pool, lifecycle: lifecycle)
        self.database = database
        self.checker = checker
        self.logger = logger
        self.writer = OutcomeWriter(pool: pool, worker: configuration.name, lifecycle: lifecycle, configuration: configuration.writer,
                                    metrics: metrics, logger: logger)
        self.state = Mutex(State(breaker: CircuitBreaker(configuration: configuration.breaker)))
    }

    /// The kinds this runner looks up with the App Store Server API.
    private var serverKinds: [JobKind] {
        guard checker.serverAPI != nil, configuration.serverAPIConcurrency > 0 else { return [] }
        return configuration.receiptsThroughServerAPI ? [.transactionID, .receipt] : [.transactionID]
    }

    public func run() async throws {
        let listener = PostgresListener(configuration: database, channels: ["receiptq_jobs"], logger: logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.writer.run() }
                group.addTask {
                    for await _ in listener.events {
                        self.signedWake.signal()
                        self.serverWake.signal()
                    }
                }
                await withDiscardingTaskGroup { loops in
                    loops.addTask { await self.signedLoop() }
                    if !self.serverKinds.isEmpty { loops.addTask { await self.serverLoop() } }
                }
                listener.stop()
                self.writer.finish()
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stopping = true }
            self.signedWake.signal()
            self.serverWake.signal()
        }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    // MARK: - Signed transactions: local, a batch at a time

    private func signedLoop() async {
        while !stopping && !Task.isCancelled {
            let leases: [JobLease]
            do {
                leases = try await queue.claim(limit: configuration.signedBatch, kind: .signedTransaction, worker: configuration.name,
                                               lease: configuration.lease)
            } catch {
                logger.warning("claim of signed transactions failed; retrying in 1 s", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            var random = SystemRandomNumberGenerator()
            for lease in leases {
                let check = await checker.check(lease)
                writer.submit(configuration.decision.decide(check, lease: lease, now: Date(), using: &random))
            }
            if leases.count < configuration.signedBatch { await signedWake.wait(timeout: configuration.pollInterval) }
        }
    }

    // MARK: - App Store Server API lookups

    private func serverLoop() async {
        let kinds = serverKinds
        await withDiscardingTaskGroup { lookups in
            while !stopping && !Task.isCancelled {
                let (kind, wanted) = state.withLock { state -> (JobKind, Int) in
                    let kind = kinds[state.nextServerKind % kinds.count]
                    state.nextServerKind += 1
                    let free = max(0, configuration.serverAPIConcurrency - state.inFlight)
                    return (kind, free > 0 ? state.breaker.admit(min(free, 200), now: ContinuousClock.now) : 0)
                }
                guard wanted > 0 else {
                    await serverWake.wait(timeout: configuration.pollInterval)
                    continue
                }
                let leases: [JobLease]
                do {
                    leases = try await queue.claim(limit: wanted, kind: kind, worker: configuration.name, lease: configuration.lease)
                } catch {
                    state.withLock { $0.breaker.notSent(wanted) }
                    logger.warning("claim of transaction lookups failed; retrying in 1 s", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                    continue
                }
                state.withLock { state in
                    state.inFlight += leases.count
                    state.breaker.notSent(wanted - leases.count)
                    state.breaker.sent(leases.count, now: ContinuousClock.now)
                }
                for lease in leases { lookups.addTask { await self.lookUp(lease) } }
                if leases.count < wanted && kind == kinds.last { await serverWake.wait(timeout: configuration.pollInterval) }
            }
            let deadline = ContinuousClock.now + configuration.shutdownDeadline
            while state.withLock({ $0.inFlight }) > 0 && ContinuousClock.now < deadline { await serverWake.wait(timeout: .milliseconds(100)) }
            lookups.cancelAll()
        }
    }

    private func lookUp(_ lease: JobLease) async {
        let sent = ContinuousClock.now
        let check = await checker.check(lease)
        if Task.isCancelled {
            writer.submit(FinishedAttempt(lease: lease, decision: .result(.release)))
        } else {
            var random = SystemRandomNumberGenerator()
            writer.submit(configuration.decision.decide(check, lease: lease, now: Date(), using: &random))
        }
        let moved: CircuitBreaker<ContinuousClock.Instant>.Phase? = state.withLock { state in
            state.inFlight -= 1
            let before = state.breaker.phase
            if !TransactionDecision.reachedApple(check) {
                state.breaker.notSent(1)   // decided on this machine: says nothing of Apple's health
            } else if TransactionDecision.isAppleTrouble(check) {
                state.breaker.recordFailure(now: ContinuousClock.now, sentAt: sent)
            } else {
                state.breaker.recordSuccess(now: ContinuousClock.now, sentAt: sent)
            }
            return state.breaker.phase == before ? nil : state.breaker.phase
        }
        if let moved { logger.warning("App Store Server API circuit breaker \(moved.rawValue)") }
        if case .serverAPI(let error) = check, error.kind == .unauthorized {
            logger.error("App Store Server API refused our token: check the key, key id, issuer id and bundle id")
        }
        serverWake.signal()
    }
}
