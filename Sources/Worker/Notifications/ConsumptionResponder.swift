import AppStoreServerAPI
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization

/// Answers Apple's CONSUMPTION_REQUESTs inside `receiptq worker` (when App Store Server API
/// credentials are configured): claims the requests whose deadline is ahead, decides with
/// `ConsumptionReport` (pure: consent first, ledger facts only, the operator's refund preference),
/// and sends Send Consumption Information (v2) through the fleet's rate budget. Never after the
/// 12-hour window; never without the customer's consent (the backend records it:
/// `PUT /v1/users/{id}/consumption-consent`). Apple's temporary failures are retried with backoff
/// while the window lasts.
public final class ConsumptionResponder: Service, Sendable {
    public struct Configuration: Sendable {
        public var name: String
        /// Default 20.
        public var batch: Int
        /// Default 60 s.
        public var lease: Duration
        /// Requests are rare: a poll every few seconds answers well within 12 hours. Default 5 s.
        public var pollInterval: Duration
        public var retry: NotificationRetryPolicy
        /// What Apple hears as the refund preference. Default: `.noPreference`.
        public var refundPreference: RefundPreferencePolicy
        /// On SIGTERM, how long an answer being sent may take before it is abandoned and its
        /// request queued again (the worker's `--shutdown-deadline`). Default 3 s.
        public var shutdownDeadline: Duration

        public init(name: String, batch: Int = 20, lease: Duration = .seconds(60), pollInterval: Duration = .seconds(5),
                    retry: NotificationRetryPolicy = NotificationRetryPolicy(initialDelay: .seconds(30), maxDelay: .seconds(1800), maxAttempts: 1000),
                    refundPreference: RefundPreferencePolicy = .noPreference, shutdownDeadline: Duration = .seconds(3)) {
            self.shutdownDeadline = shutdownDeadline
            self.name = name
            self.refundPreference = refundPreference
            self.batch = batch
            self.lease = lease
            self.pollInterval = pollInterval
            self.retry = retry
        }
    }

    public let configuration: Configuration
    private let pool: PostgresPool
    private let clients: ServerAPIClients
    private let logger: Logger
    private let wake = WakeSignal()
    private let stopping = Mutex(false)

    public init(configuration: Configuration, pool: PostgresPool, clients: ServerAPIClients, logger: Logger) {
        self.configuration = configuration
        self.pool = pool
        self.clients = clients
        self.logger = logger
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            let (worker, limit, lease) = (configuration.name, configuration.batch, configuration.lease)
            while !stopping.withLock({ $0 }) && !Task.isCancelled {
                do {
                    let leases = try await pool.withConnection { try ClaimConsumptionRequests.run(limit: limit, worker: worker, lease: lease, on: $0) }
                    await cancelAfterGracefulShutdown(deadline: configuration.shutdownDeadline) {
                        for lease in leases { await self.answer(lease) }
                    }
                    if leases.count == limit { continue }
                } catch {
                    logger.warning("claim of consumption requests failed", metadata: ["error": "\(error)"])
                }
                await wake.wait(timeout: configuration.pollInterval)
            }
        } onGracefulShutdown: {
            self.stopping.withLock { $0 = true }
            self.wake.signal()
        }
    }

    private func answer(_ lease: ConsumptionLease) async {
        let ending: FinishConsumptionRequest.Ending
        switch ConsumptionReport.decide(lease, policy: configuration.refundPreference, now: Date()) {
        case .expired:
            ending = .failed("the 12-hour window closed before an answer")
        case .noConsent:
            ending = .noConsent
        case .send(let report):
            do {
                let environment: ServerAPIEnvironment = lease.environment == "Sandbox" ? .sandbox : .production
                try await clients.client(for: environment).sendConsumptionInformation(transactionId: lease.transactionID, report)
                ending = .sent
            } catch let error as ServerAPIError where error.isRetryable {
                let delay = configuration.retry.delay(after: lease.attempt) ?? .seconds(1800)
                ending = Date().addingTimeInterval(TimeInterval(delay.components.seconds)) < lease.deadline
                    ? .retry(after: delay, error: error.description) : .failed("\(error.description); no time left to retry")
            } catch where Task.isCancelled {
                // Stopping, past the shutdown deadline: not Apple's refusal. Queued for the next worker.
                ending = .retry(after: .zero, error: "not answered: the worker stopped while sending")
            } catch {
                ending = .failed("\(error)")
            }
        }
        do {
            _ = try await pool.withConnection { try FinishConsumptionRequest.run(lease, ending, worker: self.configuration.name, on: $0) }
        } catch {
            logger.warning("could not record a consumption answer; its lease will expire and it is tried again",
                           metadata: ["error": "\(error)"])
        }
        if case .failed(let reason) = ending {
            logger.error("consumption request not answered", metadata: ["transaction_id": "\(lease.transactionID)", "reason": "\(reason.prefix(200))"])
        }
    }
}
