import Hummingbird
import Logging

/// The outermost middleware: gives every request its id (`RequestID`), hands it inward as the
/// request's `X-Request-Id` (so a route stores the id it answers with, whoever made it) and
/// into the request's log lines, answers it on every response, counts and times the response by
/// route and status (`APIMetrics`), and writes one access log line: method, route (the
/// router's template, never the path a client sent), status, duration and request id — never a
/// body, a query or a header value.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: APIMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let id = RequestID.resolve(requestID: request.headers[RequestID.header], traceparent: request.headers[RequestID.traceparent])
        var head = request.head
        head.headerFields[RequestID.header] = id
        let request = Request(head: head, body: request.body)
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        var response = try await next(request, context)   // ProblemMiddleware inside: never throws
        response.headers[RequestID.header] = id
        let duration = ContinuousClock.now - started
        // The router names a request it matched no route for "NotFound" (also a 405's): ours says
        // which route a 405's path is, and `unmatched` for any other path.
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? MethodNotAllowed.template(path: request.uri.path)
        metrics.responded(route: route, status: Int(response.status.code), duration: duration)
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "route": .string(route), "status": .stringConvertible(response.status.code),
            "duration_ms": .string(String(format: "%.3f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3)),
            "request_id": .string(id),
        ])
        return response
    }
}
