import Foundation

/// Something Apple signed about a subscription, as `SubscriptionModel` reads it: a transaction
/// (a period), renewal info (what happens at the period's end) and Apple's status, any of them
/// absent. Built by the worker from a notification, a status check, a transaction history page
/// or an app's submission (a receipt, a signed transaction) — each after its signature was verified.
public struct SubscriptionFact: Sendable, Hashable {
    /// Where the fact came from: decides what the model may infer and what counts as a correction.
    public enum Source: Sendable, Hashable {
        /// App Store Server Notification V2 (its type and subtype name the change).
        case notification(type: String, subtype: String?)
        /// Get All Subscription Statuses: Apple's present state, the reconciliation's reference.
        case statusCheck
        /// A page of Get Transaction History (a sync): periods, possibly old ones.
        case history
        /// A receipt an app submitted, as Apple's verifyReceipt answered it: each subscription's
        /// current period (`latest_receipt_info`) and renewal (`pending_renewal_info`), signed at
        /// the receipt's creation (see `SubscriptionFact.receipt`).
        case receipt
        /// A StoreKit 2 signed transaction an app submitted, or the one Apple's Get Transaction
        /// Info answered for a submitted id: one period, signed at its `signedDate`.
        case transaction
    }

    public var source: Source
    public var originalTransactionID: String
    public var environment: String
    /// When Apple signed it (a notification's `signedDate`, else the payload's).
    public var signedAt: Date
    public var transaction: SubscriptionTransaction?
    public var renewal: SubscriptionRenewal?
    /// Apple's status, 1–5, when the fact states it.
    public var status: Int?

    public init(source: Source, originalTransactionID: String, environment: String, signedAt: Date,
                transaction: SubscriptionTransaction? = nil, renewal: SubscriptionRenewal? = nil, status: Int? = nil) {
        self.source = source
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.signedAt = signedAt.wholeMilliseconds          // Apple's precision: see Date+WholeMilliseconds
        self.transaction = transaction
        self.renewal = renewal
        self.status = status
    }

    var notificationType: String? {
        if case .notification(let type, _) = source { type } else { nil }
    }

    var notificationSubtype: String? {
        if case .notification(_, let subtype) = source { subtype } else { nil }
    }
}

/// One period of a subscription, from a signed transaction.
public struct SubscriptionTransaction: Sendable, Hashable {
    public var transactionID: String
    public var webOrderLineItemID: String?
    public var productID: String
    public var groupID: String?
    public var purchasedAt: Date?
    public var expiresAt: Date?
    public var offer: SubscriptionOffer?
    /// Apple's `isUpgraded`: the customer upgraded away from this period's product.
    public var isUpgraded: Bool
    public var revokedAt: Date?
    /// Apple's `revocationReason` (0 other, 1 an issue in the app); nil for a revocation that is
    /// not a refund.
    public var revocationReason: Int?
    /// Apple's `transactionReason`: true for `RENEWAL`, false for `PURCHASE` (a first purchase, a
    /// resubscription, an upgrade or crossgrade bought now).
    public var isRenewal: Bool
    public var familyShared: Bool

    public init(transactionID: String, webOrderLineItemID: String? = nil, productID: String, groupID: String? = nil, purchasedAt: Date?,
                expiresAt: Date?, offer: SubscriptionOffer? = nil, isUpgraded: Bool = false, revokedAt: Date? = nil,
                revocationReason: Int? = nil, isRenewal: Bool, familyShared: Bool = false) {
        self.transactionID = transactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.productID = productID
        self.groupID = groupID
        self.purchasedAt = purchasedAt?.wholeMilliseconds
        self.expiresAt = expiresAt?.wholeMilliseconds
        self.offer = offer
        self.isUpgraded = isUpgraded
        self.revokedAt = revokedAt?.wholeMilliseconds
        self.revocationReason = revocationReason
        self.isRenewal = isRenewal
        self.familyShared = familyShared
    }
}

/// What happens at the end of the period, from signed renewal info (or a receipt's
/// `pending_renewal_info`).
public struct SubscriptionRenewal: Sendable, Hashable {
    public var autoRenew: Bool?
    public var renewsToProductID: String?
    /// Apple's `expirationIntent`.
    public var expirationIntent: Int?
    public var inBillingRetry: Bool?
    public var gracePeriodExpiresAt: Date?
    /// Apple's `priceIncreaseStatus`.
    public var priceIncreaseStatus: Int?

    public init(autoRenew: Bool?, renewsToProductID: String?, expirationIntent: Int? = nil, inBillingRetry: Bool? = nil,
                gracePeriodExpiresAt: Date? = nil, priceIncreaseStatus: Int? = nil) {
        self.autoRenew = autoRenew
        self.renewsToProductID = renewsToProductID
        self.expirationIntent = expirationIntent
        self.inBillingRetry = inBillingRetry
        self.gracePeriodExpiresAt = gracePeriodExpiresAt?.wholeMilliseconds
        self.priceIncreaseStatus = priceIncreaseStatus
    }
}
