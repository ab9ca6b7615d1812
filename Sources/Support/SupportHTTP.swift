import Foundation
import Hummingbird
import NIOCore
import ReceiptQueue

/// Small pieces both halves of the support listener use: JSON and HTML responses, problem
/// bodies, request bodies, and who is asking.
enum SupportHTTP {
    static let maxBody = 64 * 1024

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                           .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// An RFC 9457 problem body.
    static func problem(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) -> Response {
        let body = "{\"status\": \(status.code), \"title\": \(SupportOperations.json(status.reasonPhrase)), \"detail\": \(SupportOperations.json(detail))}"
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The limiter's key: one budget of failed logins for the whole listener.
    static let failureKey = "support-listener"

    /// The answer to a request whose credentials did not check out: 401 with `challenge`, or 429
    /// with Retry-After while the listener's failed logins are over their allowance. A request
    /// without credentials is not a guess (a browser asks for the challenge first): 401, uncounted.
    static func refused(_ request: Request, _ failures: AuthFailureLimiter, challenge: HTTPFields, _ detail: String) -> Response {
        guard request.headers[.authorization] != nil else { return problem(.unauthorized, detail, headers: challenge) }
        if let wait = failures.blocked(failureKey) {
            return problem(.tooManyRequests, "too many failed logins: try again in \(wait) s", headers: [.retryAfter: "\(wait)"])
        }
        failures.failed(failureKey)
        return problem(.unauthorized, detail, headers: challenge)
    }

    static func status(of error: SupportError) -> HTTPResponse.Status {
        switch error.kind {
        case .invalid: .badRequest
        case .notFound: .notFound
        case .conflict: .conflict
        case .apple: .badGateway
        case .unavailable: .serviceUnavailable
        }
    }

    /// The request's body, at most `maxBody` bytes.
    static func body(_ request: Request) async throws -> Data {
        var request = request
        let buffer = try await request.collectBody(upTo: maxBody)
        return Data(buffer.readableBytesView)
    }

    /// The body as a JSON object; a 400 problem's `SupportError` otherwise.
    static func object(_ request: Request) async throws -> [String: Any] {
        let data = try await body(request)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw SupportError(.invalid, "send a JSON object")
        }
        return object
    }

    /// An application/x-www-form-urlencoded body (names may repeat).
    static func form(_ request: Request) async throws -> [(String, String)] {
        let text = String(decoding: try await body(request), as: UTF8.self)
        return text.split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { (String(s).replacingOccurrences(of: "+", with: " ")).removingPercentEncoding ?? "" }
            return (decode(kv[0]), kv.count == 2 ? decode(kv[1]) : "")
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) throws(SupportError) -> String {
        guard let value = self[key] as? String else { throw SupportError(.invalid, "\(key) (a string) is required") }
        return value
    }

    func optionalString(_ key: String) throws(SupportError) -> String? {
        guard let value = self[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw SupportError(.invalid, "\(key) must be a string") }
        return string
    }

    /// An ISO 8601 date and time (`2026-12-31T00:00:00Z`), or nil when absent.
    func optionalDate(_ key: String) throws(SupportError) -> Date? {
        guard let text = try optionalString(key), !text.isEmpty else { return nil }
        guard let date = SupportOperations.parseDate(text) else {
            throw SupportError(.invalid, "\(key) must be an ISO 8601 date and time, e.g. 2026-12-31T00:00:00Z")
        }
        return date
    }

    func int(_ key: String) throws(SupportError) -> Int? {
        guard let value = self[key], !(value is NSNull) else { return nil }
        guard let number = value as? Int else { throw SupportError(.invalid, "\(key) must be an integer") }
        return number
    }
}
