@testable import API
import Testing

/// Which id a request gets: the caller's when it is a reasonable token, else a traceparent's
/// trace id, else a new one — never a refusal.
@Suite("Request ids: accepted, taken from traceparent, or made")
struct RequestIDTests {
    static let made = "made-here"

    @Test("A caller's X-Request-Id is kept when it is 1-128 safe characters", arguments: [
        ("abc", "abc"), ("0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950e"),
        ("01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAV"), ("a.b_c:d/e+f=", "a.b_c:d/e+f="),
        (String(repeating: "x", count: 128), String(repeating: "x", count: 128)),
        (String(repeating: "x", count: 129), made), ("", made), ("has space", made), ("quote\"", made), ("new\nline", made),
        ("é", made), ("semi;colon", made),
    ])
    func requestIDHeader(given: String, expected: String) {
        #expect(RequestID.resolve(requestID: given, traceparent: nil, generate: { Self.made }) == expected)
    }

    @Test("A W3C traceparent gives its trace id when well formed", arguments: [
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", made),   // version 00 has four fields
        ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", made),         // all-zero trace id is invalid
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", made),         // all-zero parent id too
        ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", made),         // version ff is forbidden
        ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", made),         // lower-case hex only
        ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", made), ("garbage", made),
    ])
    func traceparent(given: String, expected: String) {
        #expect(RequestID.resolve(requestID: nil, traceparent: given, generate: { Self.made }) == expected)
    }

    @Test("X-Request-Id wins over traceparent; a malformed one falls back to it")
    func precedence() {
        let trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(RequestID.resolve(requestID: "mine", traceparent: trace, generate: { Self.made }) == "mine")
        #expect(RequestID.resolve(requestID: "not mine", traceparent: trace, generate: { Self.made }) == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(RequestID.resolve(requestID: nil, traceparent: nil).count == 36, "a UUID when nothing usable came")
    }

    @Test("Route labels: a template for known paths whatever the method, one value for every unknown path")
    func routeTemplates() {
        #expect(MethodNotAllowed.template(path: "/v1/receipts/42") == "/v1/receipts/{id}")
        #expect(MethodNotAllowed.template(path: "/v1/users/u1/grants") == "/v1/users/{user_id}/grants")
        #expect(MethodNotAllowed.template(path: "/v1/receipts") == "/v1/receipts")
        #expect(MethodNotAllowed.template(path: "/wp-admin/login.php") == "unmatched")
        #expect(MethodNotAllowed.template(path: "/v1/receipts/42/extra") == "unmatched")
        #expect(MethodNotAllowed.allowed(path: "/v1/receipts/7") == "GET, HEAD")
        #expect(MethodNotAllowed.allowed(path: "/v1/nothing") == nil)
    }
}
