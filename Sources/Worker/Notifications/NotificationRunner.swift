import AppleSignedData
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization

/// Applies App Store Server Notifications inside `receiptq worker`: claims them in Apple's order
/// (`ClaimNotifications`: the oldest open one of each purchase), verifies each again — the
/// signed payload and the transaction and renewal info inside it — plans its actions
/// (`NotificationPlan`, pure) and carries them out with their events in one transaction
/// (`ApplyNotification`). Woken by the API's NOTIFY at commit; polls as a fallback.
///
/// Failure semantics: our trouble (database, connection) → retried with backoff
/// (`NotificationRetryPolicy`), holding back the later notifications of the same purchase; a
/// payload that no longer verifies (roots or bundle ids changed since the API took it) or that
/// cannot be applied → `failed`, kept whole for ops and `receiptq notifications redrive`.
public final class NotificationRunner: Service, Sendable {
    public struct Configuration: Sendable {
        /// `locked_by` of its leases (the worker's name).
        public var name: String
        /// Notifications per claim. Default 100.
        public var batch: Int
        /// Default 60 s.
        public var lease: Duration
        /// Default 1 s.
        public var pollInterval: Duration
        public var retry: NotificationRetryPolicy
        /// Notifications applied at once, each in its own transaction. A claim holds at most one
        /// notification per purchase (the oldest open one), so they never touch the same state.
        /// One at a time capped a worker at ~150–170/s. Default 4 (the pool's connections).
        public var concurrency: Int

        public init(name: String, batch: Int = 100, lease: Duration = .seconds(60), pollInterval: Duration = .seconds(1),
                    retry: NotificationRetryPolicy = NotificationRetryPolicy(), concurrency: Int = 4) {
            self.name = name
            self.concurrency = max(1, concurrency)
            self.batch = batch
            self.lease = lease
            self.pollInterval = pollInterval
            self.retry = retry
        }
    }

    public let configuration: Configuration
    private let pool: PostgresPool
    private let database: PostgresConfiguration
    private let verifier: SignedTransactionVerifier
    private let logger: Logger
    private let wake = WakeSignal()
    private let stopping = Mutex(false)

    public init(configuration: Configuration, pool: PostgresPool, database: PostgresConfiguration,
                verifier: SignedTransactionVerifier, logger: Logger) {
        self.configuration = configuration
        self.pool = pool
        self.database = database
        self.verifier = verifier
        self.logger = logger
    }

    public func run() async throws {
        let listener = PostgresListener(configuration: database, channels: ["receiptq_notifications"], logger: logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { for await _ in listener.events { self.wake.signal() } }
                await self.loop()
                listener.stop()
            }
        } onGracefulShutdown: {
            self.stopping.withLock { $0 = true }
            self.wake.signal()
        }
    }

    private func loop() async {
        let worker = configuration.name
        let (limit, lease) = (configuration.batch, configuration.lease)
        while !stopping.withLock({ $0 }) && !Task.isCancelled {
            let leases: [NotificationLease]
            do {
                leases = try await pool.withConnection { try ClaimNotifications.run(limit: limit, worker: worker, lease: lease, on: $0) }
            } catch {
                logger.warning("claim of notifications failed; retrying in 1 s", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            await withTaskGroup(of: Void.self) { group in
                for (index, lease) in leases.enumerated() {
                    if index >= configuration.concurrency { await group.next() }
                    group.addTask { await self.apply(lease) }
                }
            }
            if leases.count < limit { await wake.wait(timeout: configuration.pollInterval) }
        }
    }

    /// Applies one notification; never throws (every path ends the attempt one way or another,
    /// or leaves it to its lease when the database is gone).
    func apply(_ lease: NotificationLease) async {
        let worker = configuration.name
        let outcome: NotificationPlan.Outcome
        do {
            outcome = NotificationPlan.plan(try await verifier.verifyNotification(lease.signedPayload))
        } catch let error as SignedDataVerificationError {
            outcome = .fail("no longer verifies: \(error.description)")
        } catch {
            outcome = .fail("no longer verifies: \(error)")
        }
        do {
            switch outcome {
            case .apply(let actions):
                let result = try await pool.transaction { try ApplyNotification.run(lease, actions: actions, worker: worker, on: $0) }
                if result.applied {
                    logger.debug("notification applied", metadata: ["type": "\(lease.type)", "uuid": "\(lease.uuid)", "outcome": "\(result.outcome)"])
                }
            case .fail(let reason):
                _ = try await pool.withConnection { try FinishNotification.fail(lease, worker: worker, reason: reason, on: $0) }
                logger.error("notification could not be applied; kept as failed (re-drivable)",
                             metadata: ["type": "\(lease.type)", "uuid": "\(lease.uuid)", "reason": "\(reason.prefix(200))"])
            }
        } catch {
            let message = "\(error)"
            let delay = configuration.retry.delay(after: lease.attempt)
            _ = try? await pool.withConnection { connection in
                if let delay {
                    try FinishNotification.retry(lease, worker: worker, after: delay, error: message, on: connection)
                } else {
                    try FinishNotification.fail(lease, worker: worker, reason: "gave up after \(lease.attempt) attempts: \(message)",
                                                on: connection)
                }
            }
            logger.warning("notification not applied; retrying", metadata: ["uuid": "\(lease.uuid)", "error": "\(message.prefix(200))"])
        }
    }
}
