import Foundation

/// One change a backend acts on without diffing: an event `subscription.<name>` in the outbox and
/// on webhooks, carrying these details under `change` and the subscription's state after it under
/// `subscription`.
public enum SubscriptionChange: Sendable, Hashable {
    /// The first period of a subscription (Apple: SUBSCRIBED INITIAL_BUY).
    case purchased(productID: String, offer: SubscriptionOffer?)
    /// Bought again after it had expired (SUBSCRIBED RESUBSCRIBE).
    case resubscribed(productID: String, offer: SubscriptionOffer?)
    /// A new period of the same subscription (DID_RENEW); `billingRecovered` after a billing issue.
    case renewed(productID: String, expiresAt: Date?, billingRecovered: Bool, offer: SubscriptionOffer?)
    /// The product changed: at once (an upgrade, or a crossgrade of the same duration) or at the
    /// renewal, when a scheduled downgrade or crossgrade took effect.
    case productChanged(from: String, to: String, kind: ProductChangeKind, effective: ProductChangeTiming)
    /// The customer chose another product for the next renewal (DID_CHANGE_RENEWAL_PREF DOWNGRADE).
    case productChangeScheduled(from: String, to: String, kind: ProductChangeKind)
    /// The customer went back to the current product before the scheduled change took effect.
    case productChangeCancelled(productID: String, insteadOf: String)
    /// Auto-renew turned off: access continues to the period's end, then it expires
    /// (DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED).
    case autoRenewDisabled(expiresAt: Date?)
    /// Auto-renew turned back on (AUTO_RENEW_ENABLED).
    case autoRenewEnabled
    /// Apple could not renew it (DID_FAIL_TO_RENEW): ask the customer to update their payment.
    case billingIssue(gracePeriodExpiresAt: Date?)
    /// The billing grace period began: access continues until it ends.
    case gracePeriodStarted(expiresAt: Date?)
    /// The billing grace period ended without a renewal (GRACE_PERIOD_EXPIRED).
    case gracePeriodExpired
    /// Billing recovered without a new period being seen yet (a status check found it active).
    case billingRecovered
    /// It ended (EXPIRED), with Apple's reason.
    case expired(reason: ExpirationReason?)
    /// Apple moved the renewal date (RENEWAL_EXTENDED).
    case extended(from: Date?, to: Date?)
    /// Apple refunded the current period (REFUND): take access away.
    case refunded(reason: String)
    /// Apple reversed the refund (REFUND_REVERSED).
    case refundReversed
    /// A family member's access ended (REVOKE), or Apple revoked it.
    case revoked(reason: String)
    /// A price increase that needs consent: asked, or agreed (PRICE_INCREASE PENDING / ACCEPTED).
    case priceIncrease(PriceIncreaseConsent)

    /// The event type, `subscription.<name>`.
    public var eventType: EventType {
        switch self {
        case .purchased: .subscriptionPurchased
        case .resubscribed: .subscriptionResubscribed
        case .renewed: .subscriptionRenewed
        case .productChanged: .subscriptionProductChanged
        case .productChangeScheduled: .subscriptionProductChangeScheduled
        case .productChangeCancelled: .subscriptionProductChangeCancelled
        case .autoRenewDisabled: .subscriptionAutoRenewDisabled
        case .autoRenewEnabled: .subscriptionAutoRenewEnabled
        case .billingIssue: .subscriptionBillingIssue
        case .gracePeriodStarted: .subscriptionGracePeriodStarted
        case .gracePeriodExpired: .subscriptionGracePeriodExpired
        case .billingRecovered: .subscriptionBillingRecovered
        case .expired: .subscriptionExpired
        case .extended: .subscriptionExtended
        case .refunded: .subscriptionRefunded
        case .refundReversed: .subscriptionRefundReversed
        case .revoked: .subscriptionRevoked
        case .priceIncrease: .subscriptionPriceIncrease
        }
    }

    /// The change's name: the event type without `subscription.`.
    public var name: String { String(eventType.rawValue.dropFirst("subscription.".count)) }

    /// Every event type a subscription can produce.
    public static let eventTypes: [EventType] = EventType.allCases.filter { $0.rawValue.hasPrefix("subscription.") }

    /// The change's details as a JSON object (snake_case keys, ISO 8601 dates), the event's
    /// `change` member.
    public var details: [String: String] {
        var d: [String: String] = [:]
        func offer(_ o: SubscriptionOffer?) {
            if let o {
                d["offer_type"] = o.kind.rawValue
                if let id = o.id { d["offer_id"] = id }
            }
        }
        func date(_ key: String, _ value: Date?) {
            if let value { d[key] = Self.iso8601(value) }
        }
        switch self {
        case .purchased(let product, let o), .resubscribed(let product, let o):
            d["product_id"] = product
            offer(o)
        case .renewed(let product, let expires, let recovered, let o):
            d["product_id"] = product
            date("expires_at", expires)
            d["billing_recovered"] = recovered ? "true" : "false"
            offer(o)
        case .productChanged(let from, let to, let kind, let effective):
            d["from_product_id"] = from
            d["to_product_id"] = to
            d["kind"] = kind.rawValue
            d["effective"] = effective.rawValue
        case .productChangeScheduled(let from, let to, let kind):
            d["from_product_id"] = from
            d["to_product_id"] = to
            d["kind"] = kind.rawValue
            d["effective"] = ProductChangeTiming.atRenewal.rawValue
        case .productChangeCancelled(let product, let insteadOf):
            d["product_id"] = product
            d["cancelled_product_id"] = insteadOf
        case .autoRenewDisabled(let expires):
            date("access_ends_at", expires)
        case .billingIssue(let grace):
            date("grace_period_expires_at", grace)
        case .gracePeriodStarted(let expires):
            date("grace_period_expires_at", expires)
        case .expired(let reason):
            if let reason { d["reason"] = reason.rawValue }
        case .extended(let from, let to):
            date("from_expires_at", from)
            date("expires_at", to)
        case .refunded(let reason), .revoked(let reason):
            d["reason"] = reason
        case .priceIncrease(let consent):
            d["consent"] = consent.rawValue
        case .autoRenewEnabled, .gracePeriodExpired, .billingRecovered, .refundReversed:
            break
        }
        return d
    }

    /// UTC with Apple's whole milliseconds, rounded: a `Date` made from milliseconds is often a
    /// hair below them in binary, and the formatter's fraction truncates, so it read 1 ms early.
    static func iso8601(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = (milliseconds.floorDivided(by: 1000), milliseconds - milliseconds.floorDivided(by: 1000) * 1000)
        let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))   // …T12:00:00Z
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - String(fraction).count) + String(fraction) + "Z"
    }
}

/// Whether a product change moves to more service, less, or the same level: from the catalog's
/// levels (Apple's level 1 is the highest), else from Apple's notification subtype, else from
/// when it takes effect (Apple applies upgrades at once and downgrades at renewal).
public enum ProductChangeKind: String, Sendable, Hashable, Codable {
    case upgrade
    case downgrade
    case crossgrade
}

public enum ProductChangeTiming: String, Sendable, Hashable, Codable {
    case immediate
    case atRenewal = "at_renewal"
}

private extension Int64 {
    /// Division rounding toward minus infinity (dates before 1970 too).
    func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
