import Foundation
import HTTPClient
import Logging
import ServiceLifecycle
import Synchronization

/// Sends finished spans to an OpenTelemetry collector over OTLP/HTTP JSON (`POST
/// <endpoint>/v1/traces`) through the libcurl engine, in batches, off the request path.
///
/// Promises: a span never waits for the collector — `add` only appends to a bounded buffer; when
/// the collector is slow or down the buffer's oldest spans are dropped and counted, never the
/// process's memory; on shutdown a send in flight is cut (its spans kept) and what is buffered is
/// sent once more, all within `shutdownTimeout`.
public final class OTLPExporter: Service, Sendable {
    public struct Configuration: Sendable {
        /// The collector's base URL (`http://collector:4318`); `/v1/traces` is appended unless
        /// the URL already ends with it.
        public var endpoint: String
        public var resource: OTLPTraceExport.Resource
        /// How often buffered spans are sent.
        public var interval: Duration = .seconds(1)
        /// Spans per request.
        public var batchSize = 512
        /// Spans held while the collector cannot take them; beyond it the oldest are dropped.
        public var capacity = 8192
        public var requestTimeout: Duration = .seconds(5)
        public var shutdownTimeout: Duration = .seconds(2)
        /// Extra headers (`Authorization` for a hosted collector), never logged.
        public var headers: [String: String] = [:]

        public init(endpoint: String, resource: OTLPTraceExport.Resource) {
            self.endpoint = endpoint
            self.resource = resource
        }

        /// Where spans are posted.
        public var tracesURL: String {
            let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            return base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
        }
    }

    private struct State {
        var spans: [SpanRecord] = []
        var dropped = 0
        var sent = 0
        var failedRequests = 0
        var flushRequested = false
    }

    public let configuration: Configuration
    private let http: HTTPClient
    private let logger: Logger
    private let state = Mutex(State())

    public init(configuration: Configuration, http: HTTPClient, logger: Logger) {
        self.configuration = configuration
        self.http = http
        self.logger = logger
    }

    /// Buffers one finished span (called by `OTLPSpan.end`, on any thread).
    public func add(_ span: SpanRecord) {
        state.withLock { state in
            if state.spans.count >= configuration.capacity {
                // An eighth at once: while the collector is down, a span's end costs no shift of
                // the whole buffer.
                let dropped = min(state.spans.count, max(1, configuration.capacity / 8, state.spans.count - configuration.capacity + 1))
                state.spans.removeFirst(dropped)
                state.dropped += dropped
            }
            state.spans.append(span)
            if state.spans.count >= configuration.batchSize { state.flushRequested = true }
        }
    }

    /// Asks the next tick to send now (`Tracer.forceFlush`).
    public func requestFlush() {
        state.withLock { $0.flushRequested = true }
    }

    /// Spans waiting to be sent (tests read what a span's end handed over).
    var buffered: [SpanRecord] { state.withLock { $0.spans } }

    /// Spans sent, dropped (buffer full or the collector refused them) and requests that failed.
    public var counts: (sent: Int, dropped: Int, failedRequests: Int) {
        state.withLock { ($0.sent, $0.dropped, $0.failedRequests) }
    }

    public func run() async throws {
        logger.info("exporting traces over OTLP/HTTP", metadata: ["url": "\(Self.redacted(configuration.tracesURL))"])
        var waited: Duration = .zero
        let tick = Duration.milliseconds(50)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: tick)
            waited += tick
            let due = state.withLock { $0.flushRequested } || waited >= configuration.interval
            guard due else { continue }
            waited = .zero
            // A slow collector never holds up shutdown: the send in flight is cut, its spans kept.
            await cancelWhenGracefulShutdown { await self.flush(timeout: self.configuration.requestTimeout) }
        }
        await flush(timeout: configuration.shutdownTimeout)
    }

    /// Sends what is buffered, a batch at a time, for at most `timeout` in all; a batch the
    /// collector refuses is dropped (counted, logged at warning once per failure streak), a batch
    /// whose send was cancelled goes back to the front of the buffer.
    public func flush(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline && !Task.isCancelled {
            let batch: [SpanRecord] = state.withLock { state in
                state.flushRequested = false
                let count = min(configuration.batchSize, state.spans.count)
                defer { state.spans.removeFirst(count) }
                return Array(state.spans.prefix(count))
            }
            guard !batch.isEmpty else { return }
            var headers = configuration.headers
            headers["Content-Type"] = "application/json"
            let body = OTLPTraceExport.body(batch, resource: configuration.resource)
            let status: Int?
            do {
                status = try await http.post(url: configuration.tracesURL, headers: headers, body: body,
                                             timeout: max(.milliseconds(1), deadline - ContinuousClock.now)).status
            } catch is CancellationError {
                state.withLock { $0.spans.insert(contentsOf: batch, at: 0) }
                return
            } catch {
                status = nil
            }
            let firstFailure = state.withLock { state -> Bool in
                if let status, (200..<300).contains(status) {
                    state.sent += batch.count
                    state.failedRequests = 0
                    return false
                }
                state.dropped += batch.count
                state.failedRequests += 1
                return state.failedRequests == 1
            }
            if firstFailure {
                logger.warning("the OTLP collector did not take a batch of spans; they are dropped", metadata: [
                    "url": "\(Self.redacted(configuration.tracesURL))", "status": "\(status.map(String.init) ?? "no answer")",
                    "spans": "\(batch.count)",
                ])
            }
            if status.map({ !(200..<300).contains($0) }) ?? true { return }
        }
    }

    /// The URL without user information or query (a hosted collector's key may sit there).
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unparsable URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        return components.string ?? "(unparsable URL)"
    }
}
