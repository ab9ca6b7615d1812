import Foundation

/// A subscription as a backend sees it, in `subscription.*` events and
/// `GET /v1/users/{user_id}/subscriptions`: snake_case keys, ISO 8601 dates, absent when unknown.
public struct SubscriptionView: Sendable, Hashable, Codable {
    public var originalTransactionID: String
    public var environment: String
    public var groupID: String?
    /// active, billing_retry, grace_period, expired or revoked.
    public var state: String
    /// The product in effect now.
    public var productID: String
    public var transactionID: String
    public var periodStartedAt: String?
    /// When the current period ends, extensions included.
    public var expiresAt: String?
    public var autoRenew: Bool?
    public var renewsToProductID: String?
    /// A downgrade or crossgrade waiting for the renewal.
    public var pendingProductID: String?
    public var gracePeriodExpiresAt: String?
    public var expirationReason: String?
    public var offerType: String?
    public var offerID: String?
    public var priceIncrease: String?
    public var revokedAt: String?
    public var revocationReason: String?
    public var familyShared: Bool

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id", environment, groupID = "group_id", state, productID = "product_id"
        case transactionID = "transaction_id", periodStartedAt = "period_started_at", expiresAt = "expires_at"
        case autoRenew = "auto_renew", renewsToProductID = "renews_to_product_id", pendingProductID = "pending_product_id"
        case gracePeriodExpiresAt = "grace_period_expires_at", expirationReason = "expiration_reason", offerType = "offer_type"
        case offerID = "offer_id", priceIncrease = "price_increase", revokedAt = "revoked_at", revocationReason = "revocation_reason"
        case familyShared = "family_shared"
    }

    public init(_ s: Subscription) {
        let date = { (d: Date?) in d.map(SubscriptionChange.iso8601) }
        originalTransactionID = s.originalTransactionID
        environment = s.environment
        groupID = s.groupID
        state = s.status.rawValue
        productID = s.productID
        transactionID = s.transactionID
        periodStartedAt = date(s.periodStartedAt)
        expiresAt = date(s.expiresAt)
        autoRenew = s.autoRenew
        renewsToProductID = s.renewsToProductID
        pendingProductID = s.pendingProductID
        gracePeriodExpiresAt = date(s.gracePeriodExpiresAt)
        expirationReason = s.expirationReason?.rawValue
        offerType = s.offer?.kind.rawValue
        offerID = s.offer?.id
        priceIncrease = s.priceIncrease?.rawValue
        revokedAt = date(s.revokedAt)
        revocationReason = s.revocationReason
        familyShared = s.familyShared
    }
}

/// A `subscription.*` event's data: what changed, and the subscription after it.
public struct SubscriptionEventBody: Sendable, Hashable, Codable {
    public var change: [String: String]
    public var subscription: SubscriptionView
}
