/// Request a Test Notification's answer: the token to ask Get Test Notification Status with.
public struct SendTestNotificationResponse: Decodable, Sendable, Hashable {
    public var testNotificationToken: String?

    public init(testNotificationToken: String? = nil) {
        self.testNotificationToken = testNotificationToken
    }

    enum CodingKeys: String, CodingKey { case testNotificationToken }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        testNotificationToken = c.lenient(.testNotificationToken)
    }
}

/// Get Test Notification Status' answer: the TEST notification and Apple's attempts to send it.
public struct CheckTestNotificationResponse: Decodable, Sendable, Hashable {
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
