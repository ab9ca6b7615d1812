import Foundation

/// Why a Server API call gave no usable answer: one `kind` the caller acts on, plus Apple's error
/// code and message when it sent them. Made by `ServerAPIClassification.classify` (HTTP answers)
/// and by the client (transport failures, unreadable bodies).
///
/// `description` is one terse line, safe for job rows and logs (it never holds a token or a
/// signed payload); `debugDescription` adds Apple's message and the transport detail.
public struct ServerAPIError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// 404 with `TransactionIdNotFoundError` (4040010) or `OriginalTransactionIdNotFoundError`
        /// (4040005): no such transaction **in this environment**. Ask the other one (as 21007
        /// does for verifyReceipt); not found in either is an answer, not a failure.
        case transactionNotFound
        /// Any other 404 (account, app, test notification, …): the thing asked for does not exist.
        case notFound
        /// Apple-side trouble worth retrying: 4040002, 4040004, 4040006, 5000001, and any 5xx.
        case retryable
        /// 429: the endpoint's budget is spent until `until` (Apple's `Retry-After`, a UNIX time in
        /// milliseconds), or for `defaultRateLimitPause` when Apple gave no usable time.
        case rateLimited(until: Date?)
        /// 401: Apple refused our token — key, key id, issuer id or bundle id. A configuration
        /// problem like verifyReceipt's 21004: back off and alert, never blame the transaction.
        case unauthorized
        /// Any other 4xx: the request itself is wrong (bad id, bad body). Retrying it unchanged
        /// cannot help.
        case invalidRequest
        /// A status Apple does not document (1xx, 3xx, …): retry later and alert.
        case unexpectedStatus
        /// A 2xx whose body is not the JSON expected (a maintenance page, a truncated body).
        case unreadableResponse
        /// No complete answer within the request timeout.
        case timeout
        /// No answer at all: refused, reset, TLS or name resolution failure.
        case network
    }

    public var kind: Kind
    /// The HTTP status, when Apple answered.
    public var httpStatus: Int?
    /// Apple's `errorCode`, when the body carried one.
    public var errorCode: Int64?
    /// Apple's `errorMessage`, or transport detail; for `debugDescription` only.
    public var detail: String?

    public init(_ kind: Kind, httpStatus: Int? = nil, errorCode: Int64? = nil, detail: String? = nil) {
        self.kind = kind
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.detail = detail
    }

    /// Worth sending again later, unchanged.
    public var isRetryable: Bool {
        switch kind {
        case .retryable, .rateLimited, .unexpectedStatus, .unreadableResponse, .timeout, .network: true
        case .transactionNotFound, .notFound, .unauthorized, .invalidRequest: false
        }
    }

    /// Something on our side a person must fix (credentials, or a request we build wrongly).
    public var isConfigurationProblem: Bool {
        kind == .unauthorized || kind == .invalidRequest
    }

    public var description: String {
        let code = errorCode.map { " \($0)" } ?? ""
        let status = httpStatus.map { "HTTP \($0)" } ?? ""
        switch kind {
        case .transactionNotFound: return "App Store Server API: transaction not found in this environment (\(status)\(code))"
        case .notFound: return "App Store Server API: not found (\(status)\(code))"
        case .retryable: return "App Store Server API: temporary failure (\(status)\(code))"
        case .rateLimited: return "App Store Server API: rate limited (\(status)\(code))"
        case .unauthorized: return "App Store Server API: token refused (\(status)); check key, key id, issuer id and bundle id"
        case .invalidRequest: return "App Store Server API: invalid request (\(status)\(code))"
        case .unexpectedStatus: return "App Store Server API: unexpected answer (\(status)\(code))"
        case .unreadableResponse: return "App Store Server API: unreadable response (\(status))"
        case .timeout: return "App Store Server API: timeout"
        case .network: return "App Store Server API: no answer (network)"
        }
    }

    public var debugDescription: String {
        var text = "ServerAPIError(\(kind)"
        if let httpStatus { text += ", httpStatus: \(httpStatus)" }
        if let errorCode { text += ", errorCode: \(errorCode)" }
        if let detail { text += ", detail: \(detail.prefix(300))" }
        return text + ")"
    }
}
