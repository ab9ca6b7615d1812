import Foundation
import HTTPTypes
import Hummingbird
import Telemetry

/// The id that follows one request from the API's answer into the job, every log line about
/// it, the outbox event and the webhook delivery: the caller's `X-Request-Id` when it is a
/// reasonable token, else the trace id of a W3C `traceparent`, else a new one. Never refused:
/// a malformed id is replaced, not answered 400 (it is a convenience, not part of the request).
///
/// What is accepted is bounded so the id can go into a log line, a column and a header as it
/// is: 1–128 characters of `A–Z a–z 0–9 - _ . : / + =` (a UUID, a ULID, an ingress's id, a
/// base64 token).
public enum RequestID {
    public static let header = HTTPField.Name("X-Request-Id")!
    static let traceparent = HTTPField.Name("traceparent")!
    public static let maxLength = 128

    /// The id for a request with these header values.
    static func resolve(requestID: String?, traceparent: String?, generate: () -> String = { UUID().uuidString.lowercased() }) -> String {
        if let requestID, isValid(requestID) { return requestID }
        if let traceparent, let traceID = traceID(of: traceparent) { return traceID }
        return generate()
    }

    /// The id `AccessLogMiddleware` gave `request` (nil only outside it, in a test of a route alone).
    static func of(_ request: Request) -> String? {
        request.headers[header].flatMap { isValid($0) ? $0 : nil }
    }

    /// Whether `id` can be carried as it is.
    public static func isValid(_ id: String) -> Bool {
        (1...maxLength).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"),
                 UInt8(ascii: "+"), UInt8(ascii: "="): true
            default: false
            }
        }
    }

    /// The trace id of a W3C Trace Context `traceparent`, nil when malformed or all zeros
    /// (`TraceParent` holds the grammar, for tracing too).
    static func traceID(of traceparent: String) -> String? {
        TraceParent(traceparent)?.traceID
    }
}
