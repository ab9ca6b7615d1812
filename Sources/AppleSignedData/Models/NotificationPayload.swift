import Foundation

/// A decoded App Store Server Notification V2 (`{"signedPayload": JWS}`). The transaction and
/// renewal info inside `data` are JWS themselves and must be verified on their own.
public struct NotificationPayload: SignedPayload, Codable, Hashable {
    /// For example `REFUND`, `REVOKE`, `DID_RENEW`, `EXPIRED`, `CONSUMPTION_REQUEST`, `TEST`.
    public var notificationType: String?
    public var subtype: String?
    /// Unique per notification: Apple's retries repeat it, so it is the deduplication key.
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: Int64?
    public var data: NotificationData?
    /// Present instead of `data` for summaries of subscription renewal date extensions.
    public var summary: NotificationSummary?

    public var bundleId: String? { data?.bundleId ?? summary?.bundleId }
    public var environment: AppStoreEnvironment? { data?.environment ?? summary?.environment }
    public var appAppleId: Int64? { data?.appAppleId ?? summary?.appAppleId }
    public static var requiredClaims: SignedPayloadClaims { [.bundleId, .environment, .appAppleId] }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        notificationType = c.lenient(.notificationType)
        subtype = c.lenient(.subtype)
        notificationUUID = c.lenient(.notificationUUID)
        version = c.lenient(.version)
        signedDate = c.lenient(.signedDate)
        data = c.lenient(.data)
        summary = c.lenient(.summary)
    }
}

/// The app and the signed transaction a notification is about.
public struct NotificationData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: AppStoreEnvironment?
    /// A JWS: verify it with `SignedDataVerifier.verify(_:as: TransactionPayload.self)`.
    public var signedTransactionInfo: String?
    /// A JWS: verify it with `SignedDataVerifier.verify(_:as: RenewalInfoPayload.self)`.
    public var signedRenewalInfo: String?
    /// Subscription status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    public var consumptionRequestReason: String?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
        bundleVersion = c.lenient(.bundleVersion)
        environment = c.lenient(.environment)
        signedTransactionInfo = c.lenient(.signedTransactionInfo)
        signedRenewalInfo = c.lenient(.signedRenewalInfo)
        status = c.lenient(.status)
        consumptionRequestReason = c.lenient(.consumptionRequestReason)
    }
}

/// The outcome of a bulk subscription renewal date extension.
public struct NotificationSummary: Codable, Hashable, Sendable {
    public var requestIdentifier: String?
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestIdentifier = c.lenient(.requestIdentifier)
        environment = c.lenient(.environment)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
        productId = c.lenient(.productId)
        storefrontCountryCodes = c.lenient(.storefrontCountryCodes)
        succeededCount = c.lenient(.succeededCount)
        failedCount = c.lenient(.failedCount)
    }
}
