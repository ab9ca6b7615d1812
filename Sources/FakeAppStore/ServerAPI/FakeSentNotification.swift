/// One notification the fake made, and what became of it: what Get Notification History and Get
/// Test Notification Status serve, and what `GET /fake/admin/notifications` lists.
public struct FakeSentNotification: Sendable, Codable, Equatable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    public var environment: FakeEnvironment
    /// The transaction it is about (none for TEST).
    public var transactionId: String?
    /// Whose transaction, for history filtered by transaction id.
    public var customer: String?
    /// The JWS as POSTed.
    public var signedPayload: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var attempts: [FakeSendAttempt]
    /// A 2xx came back.
    public var delivered: Bool
    /// No attempt is pending: delivered, given up, or never sent (no URL).
    public var finished: Bool
    public var testNotificationToken: String?
}

/// One POST of a notification: when, and Apple's name for how it went (`SUCCESS`, `TIMED_OUT`,
/// `TLS_ISSUE`, `SOCKET_ISSUE`, `NO_RESPONSE`, `INVALID_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `OTHER`).
public struct FakeSendAttempt: Sendable, Codable, Equatable {
    public var attemptDate: Int64
    public var sendAttemptResult: String
}
