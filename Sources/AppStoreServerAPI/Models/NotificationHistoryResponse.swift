import Foundation

/// One page of Get Notification History: up to 20 notifications Apple sent (or tried to send).
/// Ask again with `paginationToken` while `hasMore` is true.
public struct NotificationHistoryResponse: Decodable, Sendable, Hashable {
    public var paginationToken: String?
    public var hasMore: Bool?
    public var notificationHistory: [NotificationHistoryItem]?

    public init(paginationToken: String? = nil, hasMore: Bool? = nil, notificationHistory: [NotificationHistoryItem]? = nil) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }

    enum CodingKeys: String, CodingKey { case paginationToken, hasMore, notificationHistory }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        paginationToken = c.lenient(.paginationToken)
        hasMore = c.lenient(.hasMore)
        notificationHistory = c.lenient(.notificationHistory)
    }
}

/// One notification and Apple's attempts to deliver it (at most six).
public struct NotificationHistoryItem: Decodable, Sendable, Hashable {
    /// The notification's JWS, as it was POSTed; verify with `SignedDataVerifier.verifyNotification`.
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?

    public init(signedPayload: String? = nil, sendAttempts: [SendAttemptItem]? = nil) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }

    enum CodingKeys: String, CodingKey { case signedPayload, sendAttempts }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        signedPayload = c.lenient(.signedPayload)
        sendAttempts = c.lenient(.sendAttempts)
    }
}

/// One delivery attempt: when, and how it went (`SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`,
/// `CIRCULAR_REDIRECT`, `NO_RESPONSE`, `SOCKET_ISSUE`, `UNSUPPORTED_CHARSET`, `INVALID_RESPONSE`,
/// `PREMATURE_CLOSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `OTHER`).
public struct SendAttemptItem: Decodable, Sendable, Hashable {
    /// Milliseconds since 1970.
    public var attemptDate: Int64?
    public var sendAttemptResult: String?

    public init(attemptDate: Int64? = nil, sendAttemptResult: String? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }

    public var attemptedAt: Date? { attemptDate.map(Date.init(serverAPIMilliseconds:)) }

    enum CodingKeys: String, CodingKey { case attemptDate, sendAttemptResult }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        attemptDate = c.lenientInt64(.attemptDate)
        sendAttemptResult = c.lenient(.sendAttemptResult)
    }
}
