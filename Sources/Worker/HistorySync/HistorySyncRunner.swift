import AppStoreServerAPI
import AppleSignedData
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// Walks customers' Transaction History v2 inside `receiptq worker` (with App Store Server API
/// credentials): claims due history syncs, asks Apple for one page at a time from the sync's
/// revision — each page a request under the fleet's rate budget (`FleetRateLimiter` behind the
/// client) — verifies every transaction against the trusted roots, and records the page with its
/// revision in one transaction (`RecordHistoryPage`): purchases queued for their owners as
/// signed-transaction jobs (one grant per purchase or period, by `RecordPurchases`), periods
/// applied to the subscription model as `history` facts. A walk stopped anywhere (Apple's
/// trouble, a lost lease, SIGTERM) resumes after the last page recorded.
public final class HistorySyncRunner: Service, Sendable {
    public struct Configuration: Sendable {
        public var name: String
        /// Walks at once (`--history-sync-concurrency`; 0: this worker walks none). Default 4 (each
        /// walk is sequential: one page at a time).
        public var concurrency: Int
        /// Renewed by every page recorded. Default 60 s.
        public var lease: Duration
        /// Default 2 s.
        public var pollInterval: Duration
        /// Pages per walk before it yields its lease (and resumes from the revision). Default 50.
        public var maxPagesPerClaim: Int
        /// On SIGTERM, how long walks in flight may go on before they are released. Default 3 s.
        public var shutdownDeadline: Duration
        public var decision: HistorySyncDecision

        public init(name: String, concurrency: Int = 4, lease: Duration = .seconds(60), pollInterval: Duration = .seconds(2),
                    maxPagesPerClaim: Int = 50, shutdownDeadline: Duration = .seconds(3), decision: HistorySyncDecision = HistorySyncDecision()) {
            self.name = name
            self.concurrency = concurrency
            self.lease = lease
            self.pollInterval = pollInterval
            self.maxPagesPerClaim = maxPagesPerClaim
            self.shutdownDeadline = shutdownDeadline
            self.decision = decision
        }

        /// Each setting's range; the message names the flag.
        public func validate() throws(WorkerConfigurationError) {
            guard (0...1_000).contains(concurrency) else { throw .init("--history-sync-concurrency must be 0…1000") }
        }
    }

    /// One walk's end, for logs and tests.
    public struct Walk: Sendable, Equatable {
        public var pages = 0
        public var transactions = 0
        public var queued = 0
        public var subscriptionChanges = 0
        public var corrections: [String] = []
        public var state: HistorySyncState?
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

    /// Wakes the loop (a sync was just queued).
    public func signal() { runner.signal() }

    struct Work: LeasedWork {
        let configuration: Configuration
        let pool: PostgresPool
        let clients: ServerAPIClients
        let verifier: SignedTransactionVerifier
        let metrics: WorkerMetrics
        let logger: Logger

        var label: String { "history syncs" }

        func claim(limit: Int) async throws -> [HistorySyncLease] {
            let (worker, lease) = (configuration.name, configuration.lease)
            return try await pool.withConnection { try ClaimHistorySyncs.run(limit: limit, worker: worker, lease: lease, on: $0) }
        }

        func perform(_ lease: HistorySyncLease) async {
            _ = await walk(lease)
        }

        /// Walks from the lease's revision until the last page, an error or `maxPagesPerClaim`.
        func walk(_ lease: HistorySyncLease) async -> Walk {
            var walk = Walk()
            var revision = lease.revision
            var originals: Set<String> = []
            let (client, pageVerifier) = clients.answering(in: lease.environment, verifiedBy: verifier)
            let ending: FinishHistorySync.Ending
            do {
                while true {
                    if Task.isCancelled {
                        ending = .release
                        break
                    }
                    let page = try await client.getTransactionHistory(transactionId: lease.originalTransactionID, revision: revision)
                    var transactions: [HistoryTransaction] = []
                    for signed in page.signedTransactions ?? [] {
                        transactions.append(try HistoryTransaction(verifying: try await pageVerifier.verifyTransaction(signed), signed: signed,
                                                                   environment: lease.environment))
                    }
                    if Task.isCancelled {
                        ending = .release
                        break
                    }
                    let next = page.revision ?? revision
                    let (worker, duration) = (configuration.name, configuration.lease)
                    let recorded = try await pool.transaction { [transactions] in
                        try RecordHistoryPage.run(lease, worker: worker, revision: next, transactions: transactions, lease: duration, on: $0)
                    }
                    guard recorded.recorded else {
                        logger.warning("history sync lease lost; its next walk resumes from the last page recorded")
                        return walk
                    }
                    walk.pages += 1
                    walk.transactions += transactions.count
                    originals.formUnion(transactions.map(\.originalTransactionID))
                    walk.queued += recorded.queued
                    walk.subscriptionChanges += recorded.subscriptionChanges
                    walk.corrections += recorded.corrections
                    metrics.historyPages.increment()
                    if !recorded.corrections.isEmpty { metrics.subscriptionCorrections("history").increment(by: recorded.corrections.count) }
                    let advanced = next != revision
                    revision = next
                    if page.hasMore != true {
                        ending = .synced
                        break
                    }
                    if !advanced {
                        // More claimed without a new revision: asking again would loop on the same page.
                        ending = .retry(after: configuration.decision.retry.delay(after: lease.attempt) ?? .seconds(60),
                                        error: "Apple said hasMore without a new revision")
                        break
                    }
                    if walk.pages >= configuration.maxPagesPerClaim {
                        // A long walk yields its slot and resumes from the revision just kept.
                        ending = .yielded
                        break
                    }
                }
            } catch let error as ServerAPIError {
                ending = configuration.decision.ending(for: error, attempt: lease.attempt)
            } catch let error as SignedDataVerificationError {
                // Apple's own answer over TLS that does not verify: the roots or a man in the middle.
                ending = .retry(after: configuration.decision.retry.maxDelay, error: "Apple's signed history refused: \(error.description)")
            } catch is CancellationError {
                ending = .release
            } catch {
                ending = .retry(after: configuration.decision.retry.delay(after: lease.attempt) ?? .seconds(60), error: "\(error)")
            }
            do {
                let worker = configuration.name
                walk.state = try await pool.transaction { [originals, revision] in
                    try FinishHistorySync.run(lease, ending, worker: worker, covering: originals, revision: revision, on: $0)
                }
            } catch {
                logger.warning("history sync end not recorded; its lease will expire", metadata: ["error": "\(error)"])
            }
            if case .failed(let reason) = ending {
                logger.warning("history sync failed", metadata: ["original_transaction_id": "\(lease.originalTransactionID)", "reason": "\(reason)"])
            }
            return walk
        }
    }
}

extension HistoryTransaction {
    /// A verified transaction of a history page; its subscription fact is signed when the page was.
    init(verifying t: TransactionPayload, signed: String, environment: String) throws {
        guard let id = t.transactionId, let original = t.originalTransactionId, let signedAt = t.signedAt else {
            throw ServerAPIError(.unreadableResponse, httpStatus: 200, detail: "a history transaction without an id or a signing date")
        }
        let fact = SubscriptionTransaction(apple: t).map { period in
            SubscriptionFact(source: .history, originalTransactionID: original, environment: environment, signedAt: signedAt, transaction: period)
        }
        let revocation = t.revokedAt.map { revokedAt in
            Revocation(transactionID: id, originalTransactionID: original, webOrderLineItemID: t.webOrderLineItemId, revokedAt: revokedAt,
                       reason: t.inAppOwnershipType == .familyShared && t.revocationReason == nil
                           ? "family sharing ended or revoked by Apple" : NotificationPlan.refundReason(t.revocationReason),
                       revocationReason: t.revocationReason)
        }
        self.init(signedTransaction: signed, transactionID: id, originalTransactionID: original, appAccountToken: t.appAccountToken,
                  webOrderLineItemID: t.webOrderLineItemId, signedAt: signedAt, revocation: revocation, subscription: fact)
    }
}
