/// An HTTP client for many slow requests at once: one libcurl multi handle on one thread of its
/// own, shared by every task that calls `post` or `send`.
///
/// Promises: keep-alive connections are reused; at most `maxTotalConnections` are open (excess
/// requests wait); TLS is always verified; HTTP/2 is used where the server offers it over TLS;
/// bodies above `maxResponseBytes` fail; cancelling the awaiting task abandons its request at once.
///
/// Create one per process (workers share it) after `FileDescriptorLimit.raise(to:)`: the
/// connection cap is lowered to fit the open-files limit in force at creation. Call `shutdown()`
/// before exit.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    private let engine: CurlEngine

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        var checked = configuration
        let defaults = HTTPClientConfiguration()
        if checked.maxTotalConnections <= 0 { checked.maxTotalConnections = defaults.maxTotalConnections }
        if checked.maxIdleConnections <= 0 { checked.maxIdleConnections = defaults.maxIdleConnections }
        if checked.connectTimeout <= .zero { checked.connectTimeout = defaults.connectTimeout }
        if checked.defaultTimeout <= .zero { checked.defaultTimeout = defaults.defaultTimeout }
        if checked.maxResponseBytes <= 0 { checked.maxResponseBytes = defaults.maxResponseBytes }
        if checked.maxIdleEasyHandles < 0 { checked.maxIdleEasyHandles = defaults.maxIdleEasyHandles }
        if !(1 << 10...512 << 10).contains(checked.receiveBufferBytes) { checked.receiveBufferBytes = defaults.receiveBufferBytes }
        // More connections than descriptors would fail as connect errors; fewer make excess
        // requests wait. Keep an eighth of the open-files limit (at least 64) for everything else.
        if let limit = FileDescriptorLimit.current, limit < Int.max {
            let usable = max(16, limit - max(64, limit / 8))
            checked.maxTotalConnections = min(checked.maxTotalConnections, usable)
            checked.maxIdleConnections = min(checked.maxIdleConnections, usable)
        }
        self.configuration = checked
        self.engine = CurlEngine(configuration: checked)
    }

    deinit {
        engine.requestShutdown()
    }

    /// Sends a POST and returns the complete response, whatever its HTTP status.
    /// - Parameters:
    ///   - url: absolute `http` or `https` URL.
    ///   - headers: request headers (`Content-Type` is not added for you).
    ///   - body: the request body, sent as is.
    ///   - timeout: total time allowed, connecting included; `nil` uses `defaultTimeout`.
    /// - Throws: `HTTPClientError` for transport failures, `CancellationError` if the task is cancelled.
    public func post(
        url: String,
        headers: [String: String] = [:],
        body: [UInt8],
        timeout: Duration? = nil
    ) async throws -> HTTPResponse {
        try await send(.post, url: url, headers: headers, body: HTTPBody(body), timeout: timeout)
    }

    /// Sends a POST whose body is already an `HTTPBody` (sent in place; the same body may be
    /// sent again, e.g. to the sandbox after 21007). Otherwise as `post(url:headers:body:timeout:)`.
    /// - Parameter hedge: when a straggler is sent again (only for idempotent requests); nil: never.
    public func post(
        url: String,
        headers: [String: String] = [:],
        body: HTTPBody,
        timeout: Duration? = nil,
        hedge: HTTPHedge? = nil
    ) async throws -> HTTPResponse {
        try await send(.post, url: url, headers: headers, body: body, timeout: timeout, hedge: hedge)
    }

    /// Sends a request with any method and returns the complete response, whatever its HTTP
    /// status. A GET sends no body (`body` is ignored); POST and PUT send `body` as is.
    /// - Throws: `HTTPClientError` for transport failures, `CancellationError` if the task is cancelled.
    public func send(
        _ method: HTTPMethod,
        url: String,
        headers: [String: String] = [:],
        body: [UInt8] = [],
        timeout: Duration? = nil
    ) async throws -> HTTPResponse {
        try await send(method, url: url, headers: headers, body: method == .get ? nil : HTTPBody(body), timeout: timeout)
    }

    /// `send` with the body as an `HTTPBody` (`nil`: none), sent without another copy.
    /// - Parameter hedge: when a straggler is sent again (only for idempotent requests); nil:
    ///   never. Each transfer has the whole `timeout` from when it went out.
    public func send(
        _ method: HTTPMethod,
        url: String,
        headers: [String: String] = [:],
        body: HTTPBody?,
        timeout: Duration? = nil,
        hedge: HTTPHedge? = nil
    ) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let engine = self.engine
        let id = engine.inbox.makeID()
        let limit = timeout.flatMap { $0 > .zero ? $0 : nil } ?? configuration.defaultTimeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                engine.submit(PendingRequest(
                    id: id, method: method, url: url, headers: headers, body: body, timeout: limit, hedge: hedge,
                    continuation: continuation))
                // A cancellation that came before the submission found nothing to cancel.
                if Task.isCancelled { engine.cancel(id) }
            }
        } onCancel: {
            engine.cancel(id)
        }
    }

    /// Fails requests still in flight with `HTTPClientError.shutdown` and waits for the engine
    /// thread to exit. Later calls to `post` and `send` throw `.shutdown`.
    public func shutdown() async {
        engine.requestShutdown()
        await engine.inbox.waitForExit()
    }
}
