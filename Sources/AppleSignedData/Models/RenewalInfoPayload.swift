import Foundation

/// A decoded `signedRenewalInfo`: the state of an auto-renewable subscription's next renewal.
/// Renewal info names no bundle id, so only its environment identifies where it belongs.
public struct RenewalInfoPayload: SignedPayload, Codable, Hashable {
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    /// 1: renews; 0: the user turned renewal off.
    public var autoRenewStatus: Int?
    public var expirationIntent: Int?
    public var gracePeriodExpiresDate: Int64?
    public var isInBillingRetryPeriod: Bool?
    public var offerIdentifier: String?
    public var offerType: Int?
    public var priceIncreaseStatus: Int?
    public var signedDate: Int64?
    public var environment: AppStoreEnvironment?
    public var recentSubscriptionStartDate: Int64?
    public var renewalDate: Int64?
    /// Price in milliunits of `currency`.
    public var renewalPrice: Int64?
    public var currency: String?
    public var appAccountToken: UUID?
    public var appTransactionId: String?

    public var bundleId: String? { nil }
    public var appAppleId: Int64? { nil }
    public static var requiredClaims: SignedPayloadClaims { [.environment] }

    public var renewsAt: Date? { renewalDate.map(Date.init(appStoreMilliseconds:)) }
    public var gracePeriodExpiresAt: Date? { gracePeriodExpiresDate.map(Date.init(appStoreMilliseconds:)) }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionId = c.lenient(.originalTransactionId)
        autoRenewProductId = c.lenient(.autoRenewProductId)
        productId = c.lenient(.productId)
        autoRenewStatus = c.lenient(.autoRenewStatus)
        expirationIntent = c.lenient(.expirationIntent)
        gracePeriodExpiresDate = c.lenient(.gracePeriodExpiresDate)
        isInBillingRetryPeriod = c.lenient(.isInBillingRetryPeriod)
        offerIdentifier = c.lenient(.offerIdentifier)
        offerType = c.lenient(.offerType)
        priceIncreaseStatus = c.lenient(.priceIncreaseStatus)
        signedDate = c.lenient(.signedDate)
        environment = c.lenient(.environment)
        recentSubscriptionStartDate = c.lenient(.recentSubscriptionStartDate)
        renewalDate = c.lenient(.renewalDate)
        renewalPrice = c.lenient(.renewalPrice)
        currency = c.lenient(.currency)
        appAccountToken = c.lenientUUID(.appAccountToken)
        appTransactionId = c.lenient(.appTransactionId)
    }
}
