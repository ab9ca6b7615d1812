import Foundation
import Hummingbird

/// An error answered as `application/problem+json` (RFC 9457). Each kind has a stable `type`
/// URI that clients may switch on; `detail` is for people and never contains receipt data,
/// tokens or SQL.
public struct Problem: Error, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case malformedJSON = "malformed-json"
        case invalidField = "invalid-field"
        case unauthorized
        case notFound = "not-found"
        case methodNotAllowed = "method-not-allowed"
        case conflictingOrder = "conflicting-order"
        case purchaseNotOwned = "purchase-not-owned"
        case invalidSignedTransaction = "invalid-signed-transaction"
        case invalidNotification = "invalid-notification"
        case notificationsNotConfigured = "notifications-not-configured"
        case offerSigningNotConfigured = "offer-signing-not-configured"
        case invalidAppTransaction = "invalid-app-transaction"
        case appTransactionNotOwned = "app-transaction-not-owned"
        case invalidReceipt = "invalid-receipt"
        case tooLarge = "too-large"
        case unsupportedMediaType = "unsupported-media-type"
        case rateLimited = "rate-limited"
        case databaseUnavailable = "database-unavailable"
        case internalError = "internal-error"

        public var status: HTTPResponse.Status {
            switch self {
            case .malformedJSON, .invalidField: .badRequest
            case .unauthorized: .unauthorized
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .conflictingOrder: .conflict
            case .purchaseNotOwned: .forbidden
            case .invalidSignedTransaction, .invalidNotification, .invalidReceipt: .unprocessableContent
            case .notificationsNotConfigured: .serviceUnavailable
            case .offerSigningNotConfigured: .notImplemented
            case .invalidAppTransaction: .unprocessableContent
            case .appTransactionNotOwned: .forbidden
            case .tooLarge: .contentTooLarge
            case .unsupportedMediaType: .unsupportedMediaType
            case .rateLimited: .tooManyRequests
            case .databaseUnavailable: .serviceUnavailable
            case .internalError: .internalServerError
            }
        }

        /// The stable `type` member.
        public var typeURI: String { "urn:receiptq:problem:\(rawValue)" }

        var title: String {
            switch self {
            case .malformedJSON: "Request body is not the expected JSON"
            case .invalidField: "A field is missing or invalid"
            case .unauthorized: "Missing or invalid bearer token"
            case .notFound: "No such resource"
            case .methodNotAllowed: "This resource does not support this method"
            case .conflictingOrder: "This order id is already registered with another user or product"
            case .purchaseNotOwned: "This user owns no purchase of this original transaction"
            case .invalidSignedTransaction: "The signed transaction is not one Apple signed for this app; nothing was stored"
            case .invalidNotification: "The notification is not one Apple signed for this app; nothing was stored"
            case .notificationsNotConfigured: "This API cannot verify Apple's notifications yet (no bundle ids or roots); nothing was stored, Apple will retry"
            case .offerSigningNotConfigured: "This API has no In-App Purchase key to sign offers with"
            case .invalidAppTransaction: "The app transaction is not one Apple signed for this app; nothing was stored"
            case .appTransactionNotOwned: "This app transaction belongs to another user"
            case .invalidReceipt: "The receipt is not an app receipt Apple signed for this app; nothing was stored"
            case .tooLarge: "Request body or receipt too large"
            case .unsupportedMediaType: "Content-Type must be application/json"
            case .rateLimited: "Too many requests"
            case .databaseUnavailable: "Database unavailable; nothing was stored, retry later"
            case .internalError: "Internal error"
            }
        }
    }

    public var kind: Kind
    public var detail: String?
    /// The field a 400 is about (`invalid-field`).
    public var field: String?
    /// Seconds after which a retry makes sense (429, 503): sent as `Retry-After`.
    public var retryAfter: Int?
    /// Methods the resource serves (405): sent as `Allow`.
    public var allow: String?
    /// The authentication challenge (401): sent as `WWW-Authenticate` (RFC 6750).
    public var wwwAuthenticate: String?

    public init(_ kind: Kind, _ detail: String? = nil, field: String? = nil, retryAfter: Int? = nil, allow: String? = nil,
                wwwAuthenticate: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.field = field
        self.retryAfter = retryAfter
        self.allow = allow
        self.wwwAuthenticate = wwwAuthenticate
    }

    static func invalid(_ field: String, _ detail: String) -> Problem {
        Problem(.invalidField, detail, field: field)
    }

    /// The response: JSON members `type`, `title`, `status`, `detail`?, `field`?.
    func response() -> Response {
        var object: [String: Any] = ["type": kind.typeURI, "title": kind.title, "status": Int(kind.status.code)]
        if let detail { object["detail"] = detail }
        if let field { object["field"] = field }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow }
        if let wwwAuthenticate { headers[.wwwAuthenticate] = wwwAuthenticate }
        return Response(status: kind.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
