import Hummingbird
import Telemetry
import Tracing

/// One server span per request (tracing on): it continues the caller's W3C `traceparent`, is
/// named by the route's template (`POST /v1/receipts`) — never the path a client sent, which may
/// hold a user id — and records the status. Everything inside runs in its context, so the access
/// log line carries its `trace_id` and a queued job keeps its traceparent (`submitTraced`).
struct RequestSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.current ?? .topLevel
        if let header = request.headers[RequestID.traceparent], let traceParent = TraceParent(header) {
            parent.traceParent = traceParent
        }
        let span = InstrumentationSystem.tracer.startSpan("\(request.method.rawValue)", context: parent, ofKind: .server)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method.rawValue
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            name(span, request, context)
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        } catch {
            name(span, request, context)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    private func name(_ span: some Span, _ request: Request, _ context: Context) {
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        span.operationName = "\(request.method.rawValue) \(route)"
        span.attributes["http.route"] = route
    }
}
