import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import WebhookSignature

/// A backend's webhook endpoint, for tests, the demo, the chaos suite and benchmarks: it checks
/// each delivery's signature as a backend would (`StandardWebhookSignature.verify`, and the
/// deprecated `ReceiptQueue-Signature` when sent; `webhook-id` must be the event's id), records what it
/// acknowledged, and can be made slow, flaky, failing or down (connections refused) on demand.
/// POST /events; everything else is 404.
public final class WebhookReceiver: Sendable {
    /// What it does with the next deliveries; change it at any time with `behave(_:)`.
    public struct Behaviour: Sendable, Equatable {
        /// Time before answering.
        public var latency: Duration
        /// Share of deliveries answered 500 (after the latency), at random.
        public var failureRate: Double
        /// Answer every delivery with this status instead (e.g. 503, 401); nil: normal.
        public var forcedStatus: Int?

        public init(latency: Duration = .zero, failureRate: Double = 0, forcedStatus: Int? = nil) {
            self.latency = latency
            self.failureRate = failureRate
            self.forcedStatus = forcedStatus
        }
    }

    /// One acknowledged delivery.
    public struct Received: Sendable, Equatable {
        public var id: String
        public var sequence: Int64
        public var type: String
        public var userID: String
        public var receivedAt: ContinuousClock.Instant
        /// The delivery's `X-Request-Id`: the API request that queued the job the event reports.
        public var requestID: String? = nil
        /// The delivery's W3C `traceparent` (tracing on): the delivery span's, in the purchase's trace.
        public var traceParent: String? = nil
    }

    private struct State {
        var behaviour: Behaviour
        var acknowledged: [Received] = []
        var refusedSignatures = 0
        var answeredFailure = 0
    }

    private let secrets: [String]
    private let state: Mutex<State>
    private let boundPort = Mutex(0)
    private let server = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let logger: Logger

    /// The port it listens on (kept across `down()` / `up()`).
    public var port: Int { boundPort.withLock { $0 } }
    public var url: String { "http://127.0.0.1:\(port)/events" }

    private init(secrets: [String], behaviour: Behaviour, logger: Logger) {
        self.secrets = secrets
        self.state = Mutex(State(behaviour: behaviour))
        self.logger = logger
    }

    /// Starts listening on `port` (0: a free one) and returns once it does.
    public static func start(port: Int = 0, secrets: [String], behaviour: Behaviour = Behaviour(),
                             logger: Logger = Logger(label: "webhook-receiver")) async throws -> WebhookReceiver {
        let receiver = WebhookReceiver(secrets: secrets, behaviour: behaviour, logger: logger)
        try await receiver.listen(port: port)
        return receiver
    }

    /// Connections are refused until `up()`.
    public func down() async {
        guard let running = server.withLock({ server in defer { server = nil }; return server }) else { return }
        await running.group.triggerGracefulShutdown()
        _ = try? await running.task.value
    }

    /// Listens again on the same port.
    public func up() async throws {
        guard server.withLock({ $0 == nil }) else { return }
        try await listen(port: port)
    }

    public func stop() async { await down() }

    public func behave(_ behaviour: Behaviour) {
        state.withLock { $0.behaviour = behaviour }
    }

    /// Deliveries answered 2xx, in the order they were acknowledged.
    public var acknowledged: [Received] { state.withLock { $0.acknowledged } }
    /// Deliveries refused because no signature matched.
    public var refusedSignatures: Int { state.withLock { $0.refusedSignatures } }
    /// Deliveries answered with a failure on purpose.
    public var answeredFailures: Int { state.withLock { $0.answeredFailure } }

    private func listen(port: Int) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let router = Router()
        router.post("events") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return await self.handle(headers: request.headers, body: Array(buffer: body))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? port) }, logger: logger)
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        server.withLock { $0 = (group, task) }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            _ = try await task.value
            throw CancellationError()
        }
        boundPort.withLock { $0 = bound }
    }

    private func handle(headers: HTTPFields, body: [UInt8]) async -> Response {
        let behaviour = state.withLock { $0.behaviour }
        if behaviour.latency > .zero { try? await Task.sleep(for: behaviour.latency) }
        guard Self.verify(headers: headers, body: body, secrets: secrets) else {
            state.withLock { $0.refusedSignatures += 1 }
            return Response(status: .unauthorized)
        }
        if let forced = behaviour.forcedStatus {
            state.withLock { $0.answeredFailure += 1 }
            return Response(status: .init(code: forced))
        }
        if behaviour.failureRate > 0, Double.random(in: 0..<1) < behaviour.failureRate {
            state.withLock { $0.answeredFailure += 1 }
            return Response(status: .internalServerError)
        }
        guard let event = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let id = event["id"] as? String, let sequence = (event["sequence"] as? NSNumber)?.int64Value,
              let idHeader = HTTPField.Name(StandardWebhookSignature.idHeader), id == headers[idHeader] else {
            return Response(status: .badRequest)
        }
        let received = Received(id: id, sequence: sequence, type: event["type"] as? String ?? "",
                                userID: event["user_id"] as? String ?? "", receivedAt: .now,
                                requestID: HTTPField.Name("X-Request-Id").flatMap { headers[$0] },
                                traceParent: HTTPField.Name("traceparent").flatMap { headers[$0] })
        state.withLock { $0.acknowledged.append(received) }
        return Response(status: .ok)
    }

    /// The Standard Webhooks signature must verify; the deprecated `ReceiptQueue-Signature`, when
    /// sent, must verify too (both are signed with the same secrets).
    static func verify(headers: HTTPFields, body: [UInt8], secrets: [String]) -> Bool {
        var standard: [String: String] = [:]
        for name in [StandardWebhookSignature.idHeader, StandardWebhookSignature.timestampHeader, StandardWebhookSignature.signatureHeader] {
            if let field = HTTPField.Name(name), let value = headers[field] { standard[name] = value }
        }
        do {
            try StandardWebhookSignature.verify(headers: standard, body: body, secrets: secrets.map(WebhookSecret.init))
            if let name = HTTPField.Name(WebhookSignature.header), let legacy = headers[name] {
                try WebhookSignature.verify(header: legacy, body: body, secrets: secrets)
            }
            return true
        } catch {
            return false
        }
    }
}
