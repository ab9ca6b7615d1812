import CoreMetrics
import Foundation
import HTTPClient
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization
import Telemetry
import Tracing
import WebhookSignature

/// Pushes events to the backends' webhook endpoints: claims due deliveries with SKIP LOCKED
/// under a lease (in order per user, `ClaimDeliveries`), POSTs each signed the Standard Webhooks
/// way (`webhook-id` = the event's id; `WebhookDeliveryHeaders`) through the libcurl engine — up
/// to `concurrency` in flight — and records the outcomes in batches, fenced (`RecordDeliveries`). Runs inside `receiptq worker`, so delivery scales with
/// the workers; any number may run.
///
/// At least once: a delivery is acknowledged only by a 2xx; a deliverer that dies leaves its
/// leases to expire (the scheduler requeues them); a receiver may see an event twice and
/// deduplicates by its id. Each endpoint has its own circuit breaker, so a receiver that is
/// slow or down gets one probe at a time instead of a retry storm, and other endpoints go on.
/// Woken at commit by NOTIFY receiptq_events, so an idle system delivers within milliseconds.
public final class WebhookDeliverer: Service, Sendable {
    public let configuration: WebhookDelivererConfiguration
    private let runner: QueueRunner<Work>

    /// - Parameters:
    ///   - pool: for claims and writes (its own, or the worker's).
    ///   - database: for the LISTEN connection.
    ///   - http: an HTTP client of its own, so receivers never take Apple's connections.
    ///   - calls: each attempt's latency and result, summed per minute for the console (nil: not kept).
    public init(configuration: WebhookDelivererConfiguration, pool: PostgresPool, database: PostgresConfiguration,
                http: HTTPClient, calls: CallRecorder? = nil, logger: Logger) {
        self.configuration = configuration
        runner = QueueRunner(
            work: Work(configuration: configuration, pool: pool, http: http, calls: calls, logger: logger),
            configuration: .init(batch: configuration.maxClaimBatch, capacity: configuration.concurrency,
                                 concurrency: configuration.concurrency, refill: .whenSlotFree, pollInterval: configuration.pollInterval,
                                 shutdownDeadline: configuration.shutdownDeadline, channels: ["receiptq_events", "receiptq_webhooks"]),
            database: database, logger: logger)
    }

    /// Deliveries in flight now.
    public var inFlight: Int { runner.held }

    public func run() async throws {
        guard configuration.concurrency > 0 else { return }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runner.work.writeLoop() }
            await runner.run()
            runner.work.state.withLock { $0.drained = true }
        }
    }

    /// Claims per endpoint behind its breaker, POSTs signed, hands the results to `writeLoop`.
    final class Work: LeasedWork {
        let configuration: WebhookDelivererConfiguration
        let pool: PostgresPool
        let http: HTTPClient
        let logger: Logger
        let calls: CallRecorder?
        let lifecycle: DeliveryLifecycle
        let state = Mutex(State())

        struct State: ~Copyable {
            var endpoints: [WebhookEndpoint] = []
            var endpointsLoadedAt: ContinuousClock.Instant?
            var breakers: [String: CircuitBreaker<ContinuousClock.Instant>] = [:]
            var finished: [(DeliveryLease, DeliveryResult)] = []
            /// The runner returned: every delivery ended and handed its result over.
            var drained = false
        }

        init(configuration: WebhookDelivererConfiguration, pool: PostgresPool, http: HTTPClient, calls: CallRecorder?, logger: Logger) {
            self.configuration = configuration
            self.calls = calls
            self.pool = pool
            self.http = http
            self.logger = logger
            self.lifecycle = DeliveryLifecycle(deadline: configuration.decision.retry.budget.deadline)
        }

        var label: String { "webhook deliveries" }

        func heard(_ event: PostgresListenerEvent) {
            if case .notification(let note) = event, note.channel == "receiptq_webhooks" {
                state.withLock { $0.endpointsLoadedAt = nil }
            }
        }

        /// Each enabled endpoint in turn, as many as its breaker admits of what is still free.
        func claim(limit: Int) async throws -> [DeliveryLease] {
            var leases: [DeliveryLease] = []
            for endpoint in try await endpoints() where endpoint.enabled {
                let free = limit - leases.count
                guard free > 0 else { break }
                let wanted = state.withLock { state -> Int in
                    var breaker = state.breakers[endpoint.id] ?? CircuitBreaker(configuration: configuration.breaker)
                    let admitted = breaker.admit(free, now: .now)
                    state.breakers[endpoint.id] = breaker
                    return admitted
                }
                guard wanted > 0 else { continue }
                let claimed: [DeliveryLease]
                do {
                    claimed = try await pool.withConnection { [configuration] connection in
                        try ClaimDeliveries.run(endpoint: endpoint.id, limit: wanted, worker: configuration.name,
                                                lease: configuration.lease, on: connection)
                    }
                } catch {
                    state.withLock { $0.breakers[endpoint.id]?.notSent(wanted) }
                    guard leases.isEmpty else { return leases }   // the runner carries out what it has; the next claim backs off
                    throw error
                }
                state.withLock { $0.breakers[endpoint.id]?.notSent(wanted - claimed.count) }
                leases += claimed
            }
            return leases
        }

        /// The endpoints, reloaded every `endpointRefresh` and on NOTIFY receiptq_webhooks.
        private func endpoints() async throws -> [WebhookEndpoint] {
            let (cached, stale) = state.withLock { state in
                (state.endpoints, state.endpointsLoadedAt.map { ContinuousClock.now - $0 > configuration.endpointRefresh } ?? true)
            }
            guard stale else { return cached }
            let loaded = try await pool.withConnection { try ListWebhookEndpoints.run(on: $0) }
            state.withLock { state in
                state.endpoints = loaded
                state.endpointsLoadedAt = .now
            }
            return loaded
        }

        func perform(_ lease: DeliveryLease) async {
            let sent = ContinuousClock.now
            var headers = WebhookDeliveryHeaders.make(eventID: lease.eventID, body: lease.body, secrets: lease.secrets,
                                                      timestamp: Int64(Date().timeIntervalSince1970))
            // Checked by the database when the job was stored (1–128 safe characters): header-safe.
            if let requestID = lease.requestID { headers["X-Request-Id"] = requestID }
            // The event's trace continues here and on to the backend (its `traceparent` header).
            let span = lease.traceParent.map { parent in
                InstrumentationSystem.tracer.startSpan("webhook.deliver", context: .continuing(parent), ofKind: .client)
            }
            span?.context.injectTraceParent(into: &headers)
            defer { span?.end() }
            let answer: DeliveryDecision.Answer
            do {
                let response = try await http.post(url: lease.url, headers: headers, body: lease.body, timeout: configuration.requestTimeout)
                answer = .status(response.status)
                span?.updateAttributes { attributes in
                    attributes["http.response.status_code"] = response.status
                    attributes["receiptq.endpoint"] = lease.endpointID
                    attributes["receiptq.delivery_attempt"] = lease.attempt
                }
                if !(200..<300).contains(response.status) { span?.setStatus(SpanStatus(code: .error)) }
            } catch let error as HTTPClientError {
                answer = .transportError(error.description)
                span?.setStatus(SpanStatus(code: .error, message: "transport error"))
            } catch {
                finish(lease, .release, receiverFailed: nil, sentAt: sent)   // shutdown: not attempted
                return
            }
            var random = SystemRandomNumberGenerator()
            let (result, failed) = configuration.decision.decide(answer, lease: lease, now: Date(), using: &random)
            finish(lease, result, receiverFailed: failed, sentAt: sent)
        }

        private func finish(_ lease: DeliveryLease, _ result: DeliveryResult, receiverFailed: Bool?, sentAt: ContinuousClock.Instant) {
            Counter(label: WorkerMetrics.webhookDeliveriesTotal,
                    dimensions: [("endpoint", lease.endpointID), ("result", result.metricName)]).increment()
            if let receiverFailed { calls?.record(.webhooks, took: ContinuousClock.now - sentAt, failed: receiverFailed) }
            let moved: CircuitBreaker<ContinuousClock.Instant>.Phase? = state.withLock { state in
                state.finished.append((lease, result))
                guard let receiverFailed, var breaker = state.breakers[lease.endpointID] else { return nil }
                let before = breaker.phase
                if receiverFailed { breaker.recordFailure(now: .now, sentAt: sentAt) } else { breaker.recordSuccess(now: .now, sentAt: sentAt) }
                state.breakers[lease.endpointID] = breaker
                return breaker.phase == before ? nil : breaker.phase
            }
            if let moved {
                logger.warning("webhook endpoint circuit breaker \(moved.rawValue)", metadata: ["endpoint": "\(lease.endpointID)"])
            }
        }

        /// Writes finished deliveries every few milliseconds, one statement per batch; a batch that
        /// fails is retried (it is fenced, so idempotent), and on shutdown everything is written.
        func writeLoop() async {
            while true {
                let (batch, done) = state.withLock { state -> ([(DeliveryLease, DeliveryResult)], Bool) in
                    let batch = state.finished
                    state.finished.removeAll()
                    return (batch, state.drained)
                }
                if !batch.isEmpty {
                    for attempt in 1...5 {
                        do {
                            let (worker, lifecycle) = (configuration.name, self.lifecycle)
                            _ = try await pool.withConnection { try RecordDeliveries.run(batch, worker: worker, lifecycle: lifecycle, on: $0) }
                            break
                        } catch {
                            logger.warning("writing webhook deliveries failed; retrying", metadata: ["error": "\(error)", "try": "\(attempt)"])
                            try? await Task.sleep(for: .milliseconds(200 * attempt))
                        }
                    }
                }
                if done && batch.isEmpty { return }
                try? await Task.sleep(for: .milliseconds(batch.isEmpty ? 20 : 2))
            }
        }
    }
}

extension DeliveryResult {
    /// The `result` label of `receiptq_worker_webhook_deliveries_total`.
    var metricName: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retry"
        case .failed: "failed"
        case .release: "released"
        }
    }
}
