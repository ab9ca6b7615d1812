import AppStoreServerAPI
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

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
    private let runner: QueueRunner<Work>

    public init(configuration: Configuration, pool: PostgresPool, clients: ServerAPIClients, logger: Logger) {
        self.configuration = configuration
        runner = QueueRunner(
            work: Work(configuration: configuration, pool: pool, clients: clients, logger: logger),
            configuration: .init(batch: configuration.batch, capacity: configuration.batch, concurrency: 1, refill: .whenDrained,
                                 pollInterval: configuration.pollInterval, shutdownDeadline: configuration.shutdownDeadline, channels: []),
            database: nil, logger: logger)
    }

    public func run() async throws {
        await runner.run()
    }

    /// Claims requests whose deadline is ahead, decides, sends, records in the lifecycle's state.
    struct Work: LeasedWork {
        let configuration: Configuration
        let pool: PostgresPool
        let clients: ServerAPIClients
        let logger: Logger
        let lifecycle = ConsumptionLifecycle()

        var label: String { "consumption requests" }

        func claim(limit: Int) async throws -> [ConsumptionLease] {
            let (worker, lease) = (configuration.name, configuration.lease)
            return try await pool.withConnection { try ClaimConsumptionRequests.run(limit: limit, worker: worker, lease: lease, on: $0) }
        }

        func perform(_ lease: ConsumptionLease) async {
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
                    // Past the deadline, the lifecycle turns the retry into `failed` (no time left).
                    ending = .retry(after: configuration.retry.delay(after: lease.attempt) ?? .seconds(1800), error: error.description)
                } catch where Task.isCancelled {
                    // Stopping, past the shutdown deadline: not Apple's refusal. Queued for the next worker.
                    ending = .retry(after: .zero, error: "not answered: the worker stopped while sending")
                } catch {
                    ending = .failed("\(error)")
                }
            }
            WorkerMetrics.consumptionAnswered(ending.metricName)
            let (worker, lifecycle) = (configuration.name, self.lifecycle)
            do {
                let written = try await pool.withConnection { try FinishConsumptionRequest.run(lease, ending, worker: worker, lifecycle: lifecycle, on: $0) }
                if let written, written.state == .failed {
                    logger.error("consumption request not answered",
                                 metadata: ["transaction_id": "\(lease.transactionID)", "reason": "\((written.error ?? "").prefix(200))"])
                }
            } catch {
                logger.warning("could not record a consumption answer; its lease will expire and it is tried again",
                               metadata: ["error": "\(error)"])
            }
        }
    }
}

extension FinishConsumptionRequest.Ending {
    /// The `result` label of `receiptq_worker_consumption_answers_total`.
    var metricName: String {
        switch self {
        case .sent: "sent"
        case .noConsent: "no_consent"
        case .failed: "failed"
        case .retry: "retry"
        }
    }
}
