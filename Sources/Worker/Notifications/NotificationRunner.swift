import AppleSignedData
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

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
        /// On SIGTERM, how long the notifications being applied may take before they are abandoned
        /// (each then waits for its lease). Default 3 s.
        public var shutdownDeadline: Duration

        public init(name: String, batch: Int = 100, lease: Duration = .seconds(60), pollInterval: Duration = .seconds(1),
                    retry: NotificationRetryPolicy = NotificationRetryPolicy(), concurrency: Int = 4,
                    shutdownDeadline: Duration = .seconds(3)) {
            self.shutdownDeadline = shutdownDeadline
            self.name = name
            self.concurrency = max(1, concurrency)
            self.batch = batch
            self.lease = lease
            self.pollInterval = pollInterval
            self.retry = retry
        }
    }

    public let configuration: Configuration
    private let runner: QueueRunner<Work>

    public init(configuration: Configuration, pool: PostgresPool, database: PostgresConfiguration,
                verifier: SignedTransactionVerifier, logger: Logger) {
        self.configuration = configuration
        let lifecycle = NotificationLifecycle(maxAttempts: configuration.retry.maxAttempts)
        runner = QueueRunner(
            work: Work(configuration: configuration, lifecycle: lifecycle, pool: pool, verifier: verifier, logger: logger),
            configuration: .init(batch: configuration.batch, capacity: configuration.batch, concurrency: configuration.concurrency,
                                 refill: .whenDrained, pollInterval: configuration.pollInterval,
                                 shutdownDeadline: configuration.shutdownDeadline, channels: ["receiptq_notifications"]),
            database: database, logger: logger)
    }

    public func run() async throws {
        await runner.run()
    }

    /// Applies one notification; never throws (every path ends the attempt one way or another,
    /// or leaves it to its lease when the database is gone).
    func apply(_ lease: NotificationLease) async {
        await runner.work.perform(lease)
    }

    /// Claims in Apple's order, verifies again, applies or ends the attempt.
    struct Work: LeasedWork {
        let configuration: Configuration
        let lifecycle: NotificationLifecycle
        let pool: PostgresPool
        let verifier: SignedTransactionVerifier
        let logger: Logger

        var label: String { "notifications" }

        func claim(limit: Int) async throws -> [NotificationLease] {
            let (worker, lease) = (configuration.name, configuration.lease)
            return try await pool.withConnection { try ClaimNotifications.run(limit: limit, worker: worker, lease: lease, on: $0) }
        }

        func perform(_ lease: NotificationLease) async {
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
                    WorkerMetrics.notificationFinished(type: lease.type, outcome: result.applied ? "applied" : "unchanged",
                                                       lag: result.applied ? Date().timeIntervalSince(lease.signedDate) : nil)
                    if result.applied {
                        logger.debug("notification applied", metadata: ["type": "\(lease.type)", "uuid": "\(lease.uuid)", "outcome": "\(result.outcome)"])
                    }
                case .fail(let reason):
                    let lifecycle = self.lifecycle
                    _ = try await pool.withConnection {
                        try FinishNotification.run(lease, .failed(reason: reason), worker: worker, lifecycle: lifecycle, on: $0)
                    }
                    WorkerMetrics.notificationFinished(type: lease.type, outcome: "failed")
                    logger.error("notification could not be applied; kept as failed (re-drivable)",
                                 metadata: ["type": "\(lease.type)", "uuid": "\(lease.uuid)", "reason": "\(reason.prefix(200))"])
                }
            } catch {
                let message = "\(error)"
                let (delay, lifecycle) = (configuration.retry.delay(after: lease.attempt) ?? configuration.retry.maxDelay, self.lifecycle)
                _ = try? await pool.withConnection {
                    try FinishNotification.run(lease, .retry(after: delay, error: message), worker: worker, lifecycle: lifecycle, on: $0)
                }
                WorkerMetrics.notificationFinished(type: lease.type, outcome: "retry")
                logger.warning("notification not applied; retrying", metadata: ["uuid": "\(lease.uuid)", "error": "\(message.prefix(200))"])
            }
        }
    }
}
