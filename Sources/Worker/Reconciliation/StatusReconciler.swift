import AppStoreServerAPI
import AppleSignedData
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// Reconciles subscriptions with Apple inside `receiptq worker` (with App Store Server API
/// credentials): claims the subscriptions most overdue for a check (`ReconciliationSchedule`,
/// due-first), reads Get All Subscription Statuses for each (whose answer checks the customer's
/// other subscriptions too) — one request of the
/// `get_all_subscription_statuses` budget, which verifications never use — verifies Apple's signed
/// transaction and renewal info, and applies them as a `statusCheck` fact: a disagreement with
/// what notifications said is corrected, recorded (`receiptq.subscription_corrections`) and
/// counted (`receiptq_worker_subscription_corrections_total{source="status_check"}`).
public final class StatusReconciler: Service, Sendable {
    public struct Configuration: Sendable {
        public var name: String
        /// Checks in flight at most (`--reconcile-concurrency`; 0: this worker checks none). Default 8.
        public var concurrency: Int
        /// The most of Get All Subscription Statuses' fleet budget that status checks may spend, in
        /// (0, 1] (`--reconcile-budget-share`; a bucket of its own, `BudgetShareGate`). The rest stays
        /// free for anything else that calls the endpoint with the app's key. A fleet setting: give
        /// every worker the same (the last worker to start sets the bucket's rate). Default 0.5.
        public var budgetShare: Double
        /// How long a claimed check may take before another worker may take it. Default 60 s.
        public var lease: Duration
        /// Default 5 s.
        public var pollInterval: Duration
        public var schedule: ReconciliationSchedule
        /// On SIGTERM, how long checks in flight may go on. Default 3 s.
        public var shutdownDeadline: Duration

        public init(name: String, concurrency: Int = 8, lease: Duration = .seconds(60), pollInterval: Duration = .seconds(5),
                    budgetShare: Double = 0.5, schedule: ReconciliationSchedule = ReconciliationSchedule(),
                    shutdownDeadline: Duration = .seconds(3)) {
            self.name = name
            self.concurrency = concurrency
            self.budgetShare = budgetShare
            self.lease = lease
            self.pollInterval = pollInterval
            self.schedule = schedule
            self.shutdownDeadline = shutdownDeadline
        }

        /// Each setting's range; the message names the flag.
        public func validate() throws(WorkerConfigurationError) {
            guard (0...1_000).contains(concurrency) else { throw .init("--reconcile-concurrency must be 0…1000") }
            guard budgetShare > 0, budgetShare <= 1 else {
                throw .init("--reconcile-budget-share must be a fraction greater than 0 and at most 1 (0.5: half the endpoint's rate)")
            }
        }
    }

    public let configuration: Configuration
    private let runner: QueueRunner<Work>

    public init(configuration: Configuration, pool: PostgresPool, clients: ServerAPIClients, verifier: SignedTransactionVerifier,
                metrics: WorkerMetrics = WorkerMetrics(), logger: Logger) {
        self.configuration = configuration
        runner = QueueRunner(
            work: Work(configuration: configuration, pool: pool, clients: clients, verifier: verifier, metrics: metrics, logger: logger),
            configuration: .polling(slots: configuration.concurrency, every: configuration.pollInterval,
                                    shutdownDeadline: configuration.shutdownDeadline),
            database: nil, logger: logger)
    }

    public func run() async throws {
        await runner.run()
    }

    struct Work: LeasedWork {
        let configuration: Configuration
        let pool: PostgresPool
        let clients: ServerAPIClients
        let verifier: SignedTransactionVerifier
        let metrics: WorkerMetrics
        let logger: Logger

        var label: String { "status checks" }

        func claim(limit: Int) async throws -> [ReconciliationLease] {
            let lease = configuration.lease
            return try await pool.withConnection { try ClaimDueSubscriptions.run(limit: limit, lease: lease, on: $0) }
        }

        func perform(_ lease: ReconciliationLease) async {
            let (client, answerVerifier) = clients.answering(in: lease.environment, verifiedBy: verifier)
            let fact: SubscriptionFact?
            var others: [SubscriptionFact] = []
            do {
                let statuses = try await client.verifiedSubscriptionStatuses(transactionId: lease.originalTransactionID, verifier: answerVerifier)
                fact = statuses.first { $0.originalTransactionId == lease.originalTransactionID }.flatMap {
                    SubscriptionFact.statusCheck($0, environment: lease.environment)
                }
                // The customer's other subscriptions, in the same answer: checked by it too.
                others = statuses.filter { $0.originalTransactionId != lease.originalTransactionID }.compactMap {
                    SubscriptionFact.statusCheck($0, environment: lease.environment)
                }
            } catch is CancellationError {
                return   // the claim's lease ends; another check takes it
            } catch {
                if Task.isCancelled { return }
                logger.warning("status check failed; due again later", metadata: [
                    "original_transaction_id": "\(lease.originalTransactionID)", "error": "\(error)"])
                fact = nil
            }
            do {
                let (schedule, claimLease) = (configuration.schedule, configuration.lease)
                let result = try await pool.transaction { [others] in
                    try RecordReconciliation.run(lease, fact: fact, others: others, claimLease: claimLease, schedule: schedule, on: $0)
                }
                if !result.corrections.isEmpty {
                    metrics.subscriptionCorrections("status_check").increment(by: result.corrections.count)
                    logger.info("subscription corrected by Apple's status", metadata: [
                        "original_transaction_id": "\(lease.originalTransactionID)", "fields": "\(result.corrections)"])
                }
            } catch {
                logger.warning("status check not recorded; due again when its claim ends", metadata: ["error": "\(error)"])
            }
        }
    }
}

extension SubscriptionFact {
    /// Apple's present state of one subscription, from Get All Subscription Statuses (verified),
    /// signed at the later of its two signatures. Nil without a subscription transaction.
    static func statusCheck(_ status: VerifiedSubscriptionStatus, environment: String) -> SubscriptionFact? {
        guard let original = status.originalTransactionId,
              let signedAt = [status.transaction?.signedAt, status.renewalInfo?.signedAt].compactMap({ $0 }).max() else { return nil }
        return SubscriptionFact(source: .statusCheck, originalTransactionID: original, environment: environment, signedAt: signedAt,
                                transaction: status.transaction.flatMap(SubscriptionTransaction.init(apple:)),
                                renewal: status.renewalInfo.map(SubscriptionRenewal.init(apple:)), status: status.status)
    }
}
