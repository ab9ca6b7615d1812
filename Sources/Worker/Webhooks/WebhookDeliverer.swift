import CoreMetrics
import Foundation
import HTTPClient
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization
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
    private let pool: PostgresPool
    private let database: PostgresConfiguration
    private let http: HTTPClient
    private let logger: Logger
    private let wake = WakeSignal()
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var endpoints: [WebhookEndpoint] = []
        var endpointsLoadedAt: ContinuousClock.Instant?
        var breakers: [String: CircuitBreaker<ContinuousClock.Instant>] = [:]
        var inFlight = 0
        var finished: [(DeliveryLease, DeliveryResult)] = []
        var stopping = false
    }

    /// - Parameters:
    ///   - pool: for claims and writes (its own, or the worker's).
    ///   - database: for the LISTEN connection.
    ///   - http: an HTTP client of its own, so receivers never take Apple's connections.
    public init(configuration: WebhookDelivererConfiguration, pool: PostgresPool, database: PostgresConfiguration,
                http: HTTPClient, logger: Logger) {
        self.configuration = configuration
        self.pool = pool
        self.database = database
        self.http = http
        self.logger = logger
    }

    public var inFlight: Int { state.withLock { $0.inFlight } }

    public func run() async throws {
        guard configuration.concurrency > 0 else { return }
        let listener = PostgresListener(configuration: database, channels: ["receiptq_events", "receiptq_webhooks"], logger: logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await event in listener.events {
                        if case .notification(let note) = event, note.channel == "receiptq_webhooks" {
                            self.state.withLock { $0.endpointsLoadedAt = nil }
                        }
                        self.wake.signal()
                    }
                }
                group.addTask { await self.writeLoop() }
                await self.claimLoop()
                listener.stop()
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stopping = true }
            self.wake.signal()
        }
    }

    // MARK: - Claiming and sending

    private func claimLoop() async {
        await withDiscardingTaskGroup { deliveries in
            while !state.withLock({ $0.stopping }) && !Task.isCancelled {
                var claimedAny = false
                do {
                    for endpoint in try await endpoints() where endpoint.enabled {
                        let wanted = state.withLock { state -> Int in
                            let free = min(configuration.concurrency - state.inFlight, configuration.maxClaimBatch)
                            guard free > 0 else { return 0 }
                            var breaker = state.breakers[endpoint.id] ?? CircuitBreaker(configuration: configuration.breaker)
                            let admitted = breaker.admit(free, now: .now)
                            state.breakers[endpoint.id] = breaker
                            return admitted
                        }
                        guard wanted > 0 else { continue }
                        let leases = try await pool.withConnection { [configuration] connection in
                            try ClaimDeliveries.run(endpoint: endpoint.id, limit: wanted, worker: configuration.name,
                                                    lease: configuration.lease, on: connection)
                        }
                        state.withLock { state in
                            state.inFlight += leases.count
                            state.breakers[endpoint.id]?.notSent(wanted - leases.count)
                        }
                        claimedAny = claimedAny || !leases.isEmpty
                        for lease in leases { deliveries.addTask { await self.deliver(lease) } }
                    }
                } catch {
                    logger.warning("webhook claim failed; retrying", metadata: ["error": "\(error)"])
                    try? await Task.sleep(for: .seconds(1))
                }
                if !claimedAny { await wake.wait(timeout: configuration.pollInterval) }
            }
            let deadline = ContinuousClock.now + configuration.shutdownDeadline
            while inFlight > 0 && ContinuousClock.now < deadline { await wake.wait(timeout: .milliseconds(100)) }
            deliveries.cancelAll()
        }
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

    private func deliver(_ lease: DeliveryLease) async {
        let sent = ContinuousClock.now
        let headers = WebhookDeliveryHeaders.make(eventID: lease.eventID, body: lease.body, secrets: lease.secrets,
                                                  timestamp: Int64(Date().timeIntervalSince1970))
        let answer: DeliveryDecision.Answer
        do {
            let response = try await http.post(url: lease.url, headers: headers, body: lease.body, timeout: configuration.requestTimeout)
            answer = .status(response.status)
        } catch let error as HTTPClientError {
            answer = .transportError(error.description)
        } catch {
            finish(lease, .release, receiverFailed: nil, sentAt: sent)   // shutdown: not attempted
            return
        }
        var random = SystemRandomNumberGenerator()
        let (result, failed) = configuration.decision.decide(answer, lease: lease, now: Date(), using: &random)
        finish(lease, result, receiverFailed: failed, sentAt: sent)
    }

    private func finish(_ lease: DeliveryLease, _ result: DeliveryResult, receiverFailed: Bool?, sentAt: ContinuousClock.Instant) {
        Counter(label: WorkerMetrics.webhookDeliveriesTotal, dimensions: [("result", result.metricName)]).increment()
        let moved: CircuitBreaker<ContinuousClock.Instant>.Phase? = state.withLock { state in
            state.inFlight -= 1
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
        wake.signal()
    }

    // MARK: - Writing outcomes

    /// Writes finished deliveries every few milliseconds, one statement per batch; a batch that
    /// fails is retried (it is fenced, so idempotent), and on shutdown everything is written.
    private func writeLoop() async {
        while true {
            let (batch, done) = state.withLock { state -> ([(DeliveryLease, DeliveryResult)], Bool) in
                let batch = state.finished
                state.finished.removeAll()
                return (batch, state.stopping && state.inFlight == 0)
            }
            if !batch.isEmpty {
                for attempt in 1...5 {
                    do {
                        let worker = configuration.name
                        _ = try await pool.withConnection { try RecordDeliveries.run(batch, worker: worker, on: $0) }
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
