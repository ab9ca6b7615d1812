import Foundation

/// One purchase in `in_app` or `latest_receipt_info`. Apple sends identifiers, quantities and
/// millisecond dates as strings; they are kept as Apple sent them, with typed accessors.
public struct InAppTransaction: Sendable, Decodable, Equatable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    /// Number of items bought; 1 when absent or unreadable.
    public var quantity: Int
    /// Purchase time in milliseconds since 1970 (`purchase_date_ms`).
    public var purchaseDateMs: Int64?
    public var originalPurchaseDateMs: Int64?
    /// Subscription expiry in milliseconds since 1970 (`expires_date_ms`); `nil` for other products.
    public var expiresDateMs: Int64?
    /// Set when Apple refunded or revoked the purchase (`cancellation_date_ms`).
    public var cancellationDateMs: Int64?
    public var webOrderLineItemID: String?
    /// `PURCHASED`, or `FAMILY_SHARED` for a family member's access to another's purchase.
    public var inAppOwnershipType: String?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    /// Subscriptions: the customer upgraded away from this period's product (`is_upgraded`).
    public var isUpgraded: Bool?
    public var subscriptionGroupIdentifier: String?
    /// Why Apple refunded it (`cancellation_reason`: "1" an issue in the app, "0" another reason).
    public var cancellationReason: String?
    /// The promotional offer the period was bought with (`promotional_offer_id`).
    public var promotionalOfferID: String?
    /// The offer code redeemed for the period (`offer_code_ref_name`).
    public var offerCodeRefName: String?
    /// The appAccountToken the app bought with (StoreKit 2's, or a UUID it passed as StoreKit 1's
    /// applicationUsername), as Apple returns it (`app_account_token`); nil when absent or not a UUID.
    public var appAccountToken: UUID?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        transactionID = c.lenientString(AnyCodingKey("transaction_id")) ?? ""
        originalTransactionID = c.lenientString(AnyCodingKey("original_transaction_id")) ?? transactionID
        productID = c.lenientString(AnyCodingKey("product_id")) ?? ""
        quantity = c.lenientString(AnyCodingKey("quantity")).flatMap { Int($0) } ?? 1
        purchaseDateMs = c.lenientString(AnyCodingKey("purchase_date_ms")).flatMap { Int64($0) }
        originalPurchaseDateMs = c.lenientString(AnyCodingKey("original_purchase_date_ms")).flatMap { Int64($0) }
        expiresDateMs = c.lenientString(AnyCodingKey("expires_date_ms")).flatMap { Int64($0) }
        cancellationDateMs = c.lenientString(AnyCodingKey("cancellation_date_ms")).flatMap { Int64($0) }
        webOrderLineItemID = c.lenientString(AnyCodingKey("web_order_line_item_id"))
        inAppOwnershipType = c.lenientString(AnyCodingKey("in_app_ownership_type"))
        isTrialPeriod = c.lenientBool(AnyCodingKey("is_trial_period"))
        isInIntroOfferPeriod = c.lenientBool(AnyCodingKey("is_in_intro_offer_period"))
        isUpgraded = c.lenientBool(AnyCodingKey("is_upgraded"))
        subscriptionGroupIdentifier = c.lenientString(AnyCodingKey("subscription_group_identifier"))
        cancellationReason = c.lenientString(AnyCodingKey("cancellation_reason"))
        promotionalOfferID = c.lenientString(AnyCodingKey("promotional_offer_id"))
        offerCodeRefName = c.lenientString(AnyCodingKey("offer_code_ref_name"))
        appAccountToken = c.lenientString(AnyCodingKey("app_account_token")).flatMap { UUID(uuidString: $0) }
    }

    /// `purchaseDateMs` as a `Date`.
    public var purchaseDate: Date? {
        purchaseDateMs.map { Date(timeIntervalSince1970: Double($0) / 1_000) }
    }

    /// `expiresDateMs` as a `Date`.
    public var expiresDate: Date? {
        expiresDateMs.map { Date(timeIntervalSince1970: Double($0) / 1_000) }
    }
}

/// One entry of `pending_renewal_info`: what a subscription will do at its next renewal.
public struct PendingRenewalInfo: Sendable, Decodable, Equatable {
    public var productID: String?
    public var autoRenewProductID: String?
    public var originalTransactionID: String?
    /// `true` when the subscription will renew.
    public var autoRenewStatus: Bool?
    /// Why a subscription expired ("1" cancelled, "2" billing error, …), as Apple sent it.
    public var expirationIntent: String?
    public var isInBillingRetryPeriod: Bool?
    /// When the billing grace period ends (`grace_period_expires_date_ms`), while in one.
    public var gracePeriodExpiresDateMs: Int64?
    /// The customer's answer to a price increase: 0 not yet, 1 agreed (`price_increase_status`,
    /// earlier `price_consent_status`).
    public var priceIncreaseStatus: Int?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        productID = c.lenientString(AnyCodingKey("product_id"))
        autoRenewProductID = c.lenientString(AnyCodingKey("auto_renew_product_id"))
        originalTransactionID = c.lenientString(AnyCodingKey("original_transaction_id"))
        autoRenewStatus = c.lenientBool(AnyCodingKey("auto_renew_status"))
        expirationIntent = c.lenientString(AnyCodingKey("expiration_intent"))
        isInBillingRetryPeriod = c.lenientBool(AnyCodingKey("is_in_billing_retry_period"))
        gracePeriodExpiresDateMs = c.lenientString(AnyCodingKey("grace_period_expires_date_ms")).flatMap { Int64($0) }
        priceIncreaseStatus = (c.lenientString(AnyCodingKey("price_increase_status")) ?? c.lenientString(AnyCodingKey("price_consent_status")))
            .flatMap { Int($0) }
    }
}
