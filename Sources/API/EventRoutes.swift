import Hummingbird
import Postgres
import ReceiptQueue

/// GET /v1/events?after=<sequence>&limit=: the event feed for backends that pull instead of (or
/// besides) receiving webhooks. Oldest first from the cursor; the same JSON a webhook receives.
/// Paging by `after` neither skips nor repeats an event while others are being written (events
/// are appended in commit order), so a backend that stores the last sequence it processed can
/// always catch up — within the event retention (30 days by default).
struct EventRoutes<Context: RequestContext> {
    let pool: PostgresPool

    static var defaultLimit: Int { 100 }
    static var maxLimit: Int { 1000 }

    func register(on group: RouterGroup<Context>) {
        group.get("events") { request, _ in try await feed(request) }
    }

    func feed(_ request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        var after: Int64 = 0
        if let text = parameters.get("after") {
            guard let value = Int64(text), value >= 0 else { throw Problem.invalid("after", "after must be a sequence number (0 or more)") }
            after = value
        }
        var limit = Self.defaultLimit
        if let text = parameters.get("limit") {
            guard let value = Int(text), (1...Self.maxLimit).contains(value) else {
                throw Problem.invalid("limit", "limit must be an integer from 1 to \(Self.maxLimit)")
            }
            limit = value
        }
        let from = after, count = limit
        let page = try await pool.withConnection { try ListEvents.run(after: from, limit: count, on: $0) }
        // The events are JSON already (as signed for webhooks): spliced, not re-encoded.
        var body = "{\"events\":[" + page.events.joined(separator: ",") + "],\"last_sequence\":\(page.last)"
        body += ",\"next\":\"/v1/events?after=\(page.last)&limit=\(limit)\"}"
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
