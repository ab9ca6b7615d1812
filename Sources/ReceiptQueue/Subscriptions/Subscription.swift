import Foundation

/// One auto-renewable subscription as ReceiptQueue knows it: everything Apple has said about one
/// original transaction (which spans the whole subscription group — upgrades, downgrades and
/// crossgrades keep it) in one environment. Stored in `receiptq.subscriptions`; changed only by
/// `SubscriptionModel`, which reads each fact Apple signed against it.
///
/// The snapshot says what the *current period* is (the latest transaction not upgraded away),
/// what happens at its end (the renewal info) and Apple's status. Each part keeps the signing
/// time of the fact it came from, so a late or replayed fact never moves it back.
public struct Subscription: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    public var environment: String
    public var groupID: String?

    // The current period.
    /// The product of the current period: what the customer has access to.
    public var productID: String
    public var transactionID: String
    public var webOrderLineItemID: String?
    public var periodStartedAt: Date?
    /// When the current period ends, extensions included.
    public var expiresAt: Date?
    /// The offer the current period was bought or renewed with.
    public var offer: SubscriptionOffer?
    /// Set when Apple refunded or revoked the current period.
    public var revokedAt: Date?
    /// `refund`, `refund (an issue in the app)` or `family sharing ended`.
    public var revocationReason: String?
    public var familyShared: Bool
    public var transactionSignedAt: Date

    // The renewal.
    /// Whether it renews at the period's end; nil until renewal info arrives.
    public var autoRenew: Bool?
    /// The product it renews to; differs from `productID` while a downgrade or crossgrade waits
    /// for the renewal.
    public var renewsToProductID: String?
    public var inBillingRetry: Bool
    public var gracePeriodExpiresAt: Date?
    public var priceIncrease: PriceIncreaseConsent?
    /// Apple's expiration intent, kept as the reason once the subscription has expired.
    public var expirationReason: ExpirationReason?
    public var renewalSignedAt: Date?

    // Apple's status.
    public var status: SubscriptionStatus
    /// When Apple last stated the status itself (a notification's or a status check's); nil while
    /// it is derived from dates.
    public var statusSignedAt: Date?

    public init(originalTransactionID: String, environment: String, groupID: String? = nil, productID: String, transactionID: String,
                webOrderLineItemID: String? = nil, periodStartedAt: Date? = nil, expiresAt: Date? = nil, offer: SubscriptionOffer? = nil,
                revokedAt: Date? = nil, revocationReason: String? = nil, familyShared: Bool = false, transactionSignedAt: Date,
                autoRenew: Bool? = nil, renewsToProductID: String? = nil, inBillingRetry: Bool = false, gracePeriodExpiresAt: Date? = nil,
                priceIncrease: PriceIncreaseConsent? = nil, expirationReason: ExpirationReason? = nil, renewalSignedAt: Date? = nil,
                status: SubscriptionStatus = .active, statusSignedAt: Date? = nil) {
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.groupID = groupID
        self.productID = productID
        self.transactionID = transactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.periodStartedAt = periodStartedAt
        self.expiresAt = expiresAt
        self.offer = offer
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
        self.familyShared = familyShared
        self.transactionSignedAt = transactionSignedAt
        self.autoRenew = autoRenew
        self.renewsToProductID = renewsToProductID
        self.inBillingRetry = inBillingRetry
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.priceIncrease = priceIncrease
        self.expirationReason = expirationReason
        self.renewalSignedAt = renewalSignedAt
        self.status = status
        self.statusSignedAt = statusSignedAt
    }

    /// The product change waiting for the renewal (a downgrade, or a crossgrade to another
    /// duration), if any.
    public var pendingProductID: String? {
        guard let renewsToProductID, renewsToProductID != productID else { return nil }
        return renewsToProductID
    }
}
