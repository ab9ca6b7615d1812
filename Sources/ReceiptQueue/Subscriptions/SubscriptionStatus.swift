import Foundation

/// Where an auto-renewable subscription stands, in Apple's terms (the `status` of Get All
/// Subscription Statuses and of notifications).
public enum SubscriptionStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// In a paid period.
    case active
    /// Apple could not renew it and is retrying; the period has ended. Access: see the billing
    /// policy (by default none).
    case billingRetry = "billing_retry"
    /// Apple could not renew it and the developer's billing grace period runs: access continues.
    case gracePeriod = "grace_period"
    /// Ended; `Subscription.expirationReason` says why.
    case expired
    /// Refunded, or revoked from Family Sharing.
    case revoked

    /// Apple's number: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public init?(apple: Int) {
        switch apple {
        case 1: self = .active
        case 2: self = .expired
        case 3: self = .billingRetry
        case 4: self = .gracePeriod
        case 5: self = .revoked
        default: return nil
        }
    }
}

/// Why a subscription expired: Apple's `expirationIntent`, or the EXPIRED notification's subtype.
public enum ExpirationReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The customer turned auto-renew off (1, `VOLUNTARY`).
    case voluntary
    /// Billing failed and the retry period ended (2, `BILLING_RETRY`).
    case billingError = "billing_error"
    /// The customer did not consent to a price increase (3, `PRICE_INCREASE`).
    case priceIncreaseDeclined = "price_increase_declined"
    /// The product was not for sale at renewal (4, `PRODUCT_NOT_FOR_SALE`).
    case productUnavailable = "product_unavailable"
    /// Anything else (5, or a reason Apple adds).
    case other

    public init(expirationIntent: Int) {
        switch expirationIntent {
        case 1: self = .voluntary
        case 2: self = .billingError
        case 3: self = .priceIncreaseDeclined
        case 4: self = .productUnavailable
        default: self = .other
        }
    }

    /// From an `EXPIRED` notification's subtype; nil for none.
    public init?(expiredSubtype: String?) {
        switch expiredSubtype {
        case "VOLUNTARY": self = .voluntary
        case "BILLING_RETRY": self = .billingError
        case "PRICE_INCREASE": self = .priceIncreaseDeclined
        case "PRODUCT_NOT_FOR_SALE": self = .productUnavailable
        case nil: return nil
        default: self = .other
        }
    }
}
