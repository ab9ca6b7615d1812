import AppleTestPKI
import Foundation

/// How the fake's App Store Server API half behaves. Every parameter has a default; with no key
/// configured every request is refused 401, as Apple refuses a token it cannot check.
public struct FakeServerAPIConfiguration: Sendable {
    /// The app the fake serves: tokens must carry it as `bid`, and it signs it into every payload.
    /// Default: `com.example.app`.
    public var bundleId: String
    /// The app's App Store id, signed into notifications. Default: 1234567890.
    public var appAppleId: Int64
    /// The App Store Connect keys whose tokens are accepted (public halves). Default: none.
    public var acceptedKeys: [FakeAPIKey]
    /// When set, a token's `iss` must equal it. Default: `nil` (not checked).
    public var issuerId: String?
    /// Requests per second per endpoint in production, by the client's endpoint names
    /// (`get_transaction_info`, …). Missing names use Apple's table. Default: Apple's table.
    public var rateLimits: [String: Double]
    /// Sandbox rate as a fraction of production. Default: 0.1.
    public var sandboxFactor: Double
    /// Each endpoint's bucket holds this much time's worth of requests. Default: 1 s.
    public var rateBurst: Duration
    /// Time before each answer. Default: none (the Server API answers in milliseconds).
    public var latency: FakeDurationRange
    /// Where production notifications go (`POST {"signedPayload": …}`). Default: none sent.
    public var notificationURL: String?
    /// Where sandbox notifications go. Default: `notificationURL`.
    public var sandboxNotificationURL: String?
    /// Divides Apple's retry schedule (1, 12, 24, 48, 72 h): 3,600 makes an hour a second.
    /// Default: 1 (Apple's real schedule).
    public var notificationRetryCompression: Double
    /// Apple retries only in production; `true` retries sandbox notifications too. Default: false.
    public var retrySandboxNotifications: Bool
    /// Time allowed for one notification POST. Default: 10 s.
    public var notificationTimeout: Duration
    /// The CA that signs everything; `nil` builds a new one at start. Default: `nil`.
    public var pki: TestPKI?
    /// How far a token's `iat` may lie in the future (clock skew). Default: 60 s.
    public var allowedClockSkew: Duration

    public init(
        bundleId: String = "com.example.app", appAppleId: Int64 = 1_234_567_890, acceptedKeys: [FakeAPIKey] = [],
        issuerId: String? = nil, rateLimits: [String: Double] = [:], sandboxFactor: Double = 0.1, rateBurst: Duration = .seconds(1),
        latency: FakeDurationRange = FakeDurationRange(lower: .zero, upper: .zero), notificationURL: String? = nil,
        sandboxNotificationURL: String? = nil, notificationRetryCompression: Double = 1, retrySandboxNotifications: Bool = false,
        notificationTimeout: Duration = .seconds(10), pki: TestPKI? = nil, allowedClockSkew: Duration = .seconds(60)
    ) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.acceptedKeys = acceptedKeys
        self.issuerId = issuerId
        self.rateLimits = rateLimits
        self.sandboxFactor = sandboxFactor
        self.rateBurst = rateBurst
        self.latency = latency
        self.notificationURL = notificationURL
        self.sandboxNotificationURL = sandboxNotificationURL
        self.notificationRetryCompression = notificationRetryCompression
        self.retrySandboxNotifications = retrySandboxNotifications
        self.notificationTimeout = notificationTimeout
        self.pki = pki
        self.allowedClockSkew = allowedClockSkew
    }

    /// Production limits, per second, by endpoint name: Apple's published figures for the first
    /// eight; for the rest (whose figures we did not find) 50, Apple's most common limit.
    public static let appleRateLimits: [String: Double] = [
        "get_transaction_info": 50, "get_transaction_history": 50, "get_all_subscription_statuses": 50,
        "get_notification_history": 50, "send_consumption_information": 50, "get_refund_history": 10,
        "request_test_notification": 1, "get_test_notification_status": 1,
        "get_transaction_history_v1": 50, "send_consumption_data": 50, "look_up_order_id": 50, "set_app_account_token": 50,
        "get_app_transaction_info": 50, "finish_transaction": 50, "extend_subscription_renewal_date": 50,
        "extend_renewal_date_for_all_active_subscribers": 50, "get_status_of_subscription_renewal_date_extensions": 50,
    ]

    /// Requests per second for `endpoint` in `environment`.
    func rate(for endpoint: String, environment: FakeEnvironment) -> Double {
        let production = rateLimits[endpoint] ?? Self.appleRateLimits[endpoint] ?? 50
        return environment == .production ? production : production * sandboxFactor
    }

    func notificationURL(for environment: FakeEnvironment) -> String? {
        environment == .production ? notificationURL : (sandboxNotificationURL ?? notificationURL)
    }
}

/// The fake's two environments, spelled as Apple spells them in payloads.
public enum FakeEnvironment: String, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// `production`/`sandbox` in any case, or Apple's spelling.
    public init?(loosely text: String) {
        switch text.lowercased() {
        case "production": self = .production
        case "sandbox": self = .sandbox
        default: return nil
        }
    }
}
