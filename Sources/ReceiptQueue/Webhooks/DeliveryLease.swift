import Foundation

/// A claimed webhook delivery: the event as the receiver gets it, where to, and the fencing
/// token (endpoint, sequence, attempt) its completion must present.
public struct DeliveryLease: Sendable, Hashable {
    public var endpointID: String
    public var eventSequence: Int64
    public var eventID: String
    public var attempt: Int
    public var userID: String
    /// The request body, exactly as signed.
    public var body: [UInt8]
    public var url: String
    public var secrets: [String]
    /// When the retry deadline started: creation, or the last re-drive.
    public var budgetFrom: Date
    /// The API request that queued the job this event reports (the event's `request_id`), sent
    /// as the delivery's `X-Request-Id` so a backend can match it to its own POST.
    public var requestID: String?
    /// The event's traceparent (its job's, migration 0038): the delivery's span continues that trace.
    public var traceParent: String?

    public init(endpointID: String, eventSequence: Int64, eventID: String, attempt: Int, userID: String, body: [UInt8],
                url: String, secrets: [String], budgetFrom: Date, requestID: String? = nil, traceParent: String? = nil) {
        self.requestID = requestID
        self.traceParent = traceParent
        self.endpointID = endpointID
        self.eventSequence = eventSequence
        self.eventID = eventID
        self.attempt = attempt
        self.userID = userID
        self.body = body
        self.url = url
        self.secrets = secrets
        self.budgetFrom = budgetFrom
    }
}

/// How a delivery attempt ended.
public enum DeliveryResult: Sendable, Hashable {
    /// The receiver acknowledged it (2xx).
    case delivered(status: Int)
    /// Try again after a delay (`queued`).
    case retry(delayMilliseconds: Int64, status: Int?, error: String)
    /// Given up (the retry deadline passed); kept, visible in `webhook_health`, re-drivable.
    case failed(status: Int?, error: String)
    /// Not attempted (shutdown, the endpoint's breaker opened): back to `queued` now, the
    /// attempt given back.
    case release
}
