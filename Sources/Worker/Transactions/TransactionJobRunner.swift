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
    private let database: PostgresConfiguration
    private let writer: OutcomeWriter
    private let logger: Logger
    private let signed: QueueRunner<SignedWork>
    private let server: QueueRunner<ServerWork>?

    public init(configuration: Configuration, pool: PostgresPool, database: PostgresConfiguration, checker: TransactionChecker,
                lifecycle: JobLifecycle, metrics: WorkerMetrics = WorkerMetrics(), calls: CallRecorder? = nil, logger: Logger) {
        self.configuration = configuration
        let queue = JobQueue(pool: pool, lifecycle: lifecycle)
        self.database = database
        self.logger = logger
        let writer = OutcomeWriter(queue: queue, worker: configuration.name, configuration: configuration.writer,
                                   metrics: metrics, logger: logger)
        self.writer = writer
        // NOTIFY receiptq_jobs reaches both loops through one listener (`run`), not one each.
        signed = QueueRunner(
            work: SignedWork(configuration: configuration, queue: queue, checker: checker, writer: writer),
            configuration: .init(batch: configuration.signedBatch, capacity: configuration.signedBatch, concurrency: 1, refill: .whenDrained,
                                 pollInterval: configuration.pollInterval, shutdownDeadline: configuration.shutdownDeadline, channels: []),
            database: nil, logger: logger)
        // The kinds looked up with the App Store Server API.
        let kinds: [JobKind] = checker.serverAPI == nil || configuration.serverAPIConcurrency <= 0 ? []
            : configuration.receiptsThroughServerAPI ? [.transactionID, .receipt] : [.transactionID]
        server = kinds.isEmpty ? nil : QueueRunner(
            work: ServerWork(configuration: configuration, kinds: kinds, queue: queue, checker: checker, writer: writer, calls: calls, logger: logger),
            configuration: .init(batch: 200, capacity: configuration.serverAPIConcurrency, concurrency: configuration.serverAPIConcurrency,
                                 refill: .whenSlotFree, pollInterval: configuration.pollInterval,
                                 shutdownDeadline: configuration.shutdownDeadline, channels: []),
            database: nil, logger: logger)
    }

    public func run() async throws {
        let listener = PostgresListener(configuration: database, channels: ["receiptq_jobs"], logger: logger)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.writer.run() }
            group.addTask {
                for await _ in listener.events {
                    self.signed.signal()
                    self.server?.signal()
                }
            }
            await withDiscardingTaskGroup { loops in
                loops.addTask { await self.signed.run() }
                if let server = self.server { loops.addTask { await server.run() } }
            }
            listener.stop()
            self.writer.finish()
        }
    }

    // MARK: - Signed transactions: local, a batch at a time

    struct SignedWork: LeasedWork {
        let configuration: Configuration
        let queue: JobQueue
        let checker: TransactionChecker
        let writer: OutcomeWriter

        var label: String { "signed transactions" }

        func claim(limit: Int) async throws -> [JobLease] {
            let started = Date()
            let leases = try await queue.claim(limit: limit, kind: .signedTransaction, worker: configuration.name, lease: configuration.lease)
            JobSpans.claimed(leases, from: started, to: Date(), worker: configuration.name)
            return leases
        }

        func perform(_ lease: JobLease) async {
            let started = Date()
            let check = await checker.check(lease)
            JobSpans.checked(check, lease: lease, from: started, to: Date())
            var random = SystemRandomNumberGenerator()
            writer.submit(configuration.decision.decide(check, lease: lease, now: Date(), using: &random))
        }
    }

    // MARK: - App Store Server API lookups

    final class ServerWork: LeasedWork {
        let configuration: Configuration
        let kinds: [JobKind]
        let queue: JobQueue
        let checker: TransactionChecker
        let writer: OutcomeWriter
        let logger: Logger
        /// The breaker's states, summed per minute for the console (nil: not kept). One breaker
        /// covers both environments; production's row carries it.
        let calls: CallRecorder?
        private let state: Mutex<State>

        private struct State: ~Copyable {
            var breaker: CircuitBreaker<ContinuousClock.Instant>
            var nextKind = 0
        }

        init(configuration: Configuration, kinds: [JobKind], queue: JobQueue, checker: TransactionChecker, writer: OutcomeWriter,
             calls: CallRecorder?, logger: Logger) {
            self.configuration = configuration
            self.calls = calls
            self.kinds = kinds
            self.queue = queue
            self.checker = checker
            self.writer = writer
            self.logger = logger
            self.state = Mutex(State(breaker: CircuitBreaker(configuration: configuration.breaker)))
            WorkerMetrics.serverAPIBreakerMoved(to: .closed)
        }

        var label: String { "transaction lookups" }

        func admit(_ free: Int) -> Int {
            state.withLock { $0.breaker.admit(free, now: ContinuousClock.now) }
        }

        func claimed(_ count: Int, of wanted: Int) {
            state.withLock { state in
                state.breaker.notSent(wanted - count)
                if count > 0 { state.breaker.sent(count, now: ContinuousClock.now) }
            }
        }

        /// The kinds in turn, starting one further each claim, until `limit` are claimed.
        func claim(limit: Int) async throws -> [JobLease] {
            let first = state.withLock { state in
                defer { state.nextKind += 1 }
                return state.nextKind
            }
            var leases: [JobLease] = []
            for offset in kinds.indices where leases.count < limit {
                let kind = kinds[(first + offset) % kinds.count]
                do {
                    let started = Date()
                    let claimed = try await queue.claim(limit: limit - leases.count, kind: kind, worker: configuration.name,
                                                        lease: configuration.lease)
                    JobSpans.claimed(claimed, from: started, to: Date(), worker: configuration.name)
                    leases += claimed
                } catch where !leases.isEmpty {
                    return leases   // carried out; the next claim backs off
                }
            }
            return leases
        }

        func perform(_ lease: JobLease) async {
            let sent = ContinuousClock.now
            let started = Date()
            let check = await checker.check(lease)
            JobSpans.checked(check, lease: lease, from: started, to: Date())
            if logger.logLevel <= .debug {
                var metadata = lease.logMetadata
                metadata["apple_seconds"] = .string(String(format: "%.3f", (ContinuousClock.now - sent).seconds))
                metadata["reached_apple"] = .stringConvertible(TransactionDecision.reachedApple(check))
                logger.debug("App Store Server API checked the transaction", metadata: metadata)
            }
            if Task.isCancelled {
                writer.submit(FinishedAttempt(lease: lease, decision: .result(.release)))
            } else {
                var random = SystemRandomNumberGenerator()
                writer.submit(configuration.decision.decide(check, lease: lease, now: Date(), using: &random))
            }
            let moved: CircuitBreaker<ContinuousClock.Instant>.Phase? = state.withLock { state in
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
            if let moved {
                WorkerMetrics.serverAPIBreakerMoved(to: moved)
                calls?.breaker(.serverAPIProduction, CallBreakerState(moved))
                logger.warning("App Store Server API circuit breaker \(moved.rawValue)")
            }
            if case .serverAPI(let error) = check, error.kind == .unauthorized {
                logger.error("App Store Server API refused our token: check the key, key id, issuer id and bundle id")
            }
        }
    }
}
