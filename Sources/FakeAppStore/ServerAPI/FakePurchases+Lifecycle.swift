import Foundation

/// A change in an auto-renewable subscription's life, as a customer or Apple's billing makes it:
/// what `POST /fake/admin/subscription` takes. Each changes the subscription's latest period (its
/// renewal info lives there) and is followed by the notification Apple sends for it.
public struct FakeSubscriptionChange: Codable, Sendable, Equatable {
    public enum Action: String, Codable, Sendable, CaseIterable {
        /// To a higher level: the current period ends at once (`isUpgraded`), a new one of
        /// `productId` starts now. DID_CHANGE_RENEWAL_PREF UPGRADE.
        case upgrade
        /// To a lower level, or another duration: `productId` from the next renewal.
        /// DID_CHANGE_RENEWAL_PREF DOWNGRADE.
        case downgrade
        /// Back to the current product, cancelling a downgrade. DID_CHANGE_RENEWAL_PREF (no subtype).
        case cancelDowngrade = "cancel-downgrade"
        /// DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED / AUTO_RENEW_ENABLED.
        case autoRenewOff = "auto-renew-off"
        case autoRenewOn = "auto-renew-on"
        /// The renewal at the period's end could not be billed: Apple retries; with `graceDays`,
        /// access continues that long from now. DID_FAIL_TO_RENEW (GRACE_PERIOD).
        case billingFailure = "billing-failure"
        /// The grace period ends without payment; Apple still retries. GRACE_PERIOD_EXPIRED.
        case graceExpired = "grace-expired"
        /// The subscription ends (now, or at the period's start if that is later) for `reason`.
        /// EXPIRED with Apple's subtype.
        case expire
        /// A price increase needing consent is asked (`consent` pending) or agreed. PRICE_INCREASE.
        case priceIncrease = "price-increase"
    }

    public var originalTransactionId: String
    public var environment: String?
    public var action: Action
    /// upgrade, downgrade: the product to change to.
    public var productId: String?
    /// billing-failure: the grace period's length (0 or absent: none).
    public var graceDays: Int?
    /// expire: voluntary, billing-retry, price-increase or product-not-for-sale (default voluntary).
    public var reason: String?
    /// price-increase: pending (default) or agreed.
    public var consent: String?
    /// upgrade: the appAccountToken the app passed to this purchase (StoreKit signs it into the
    /// new period and every renewal after it); absent: the subscription's keeps.
    public var appAccountToken: String?

    public init(originalTransactionId: String, environment: String? = nil, action: Action, productId: String? = nil,
                graceDays: Int? = nil, reason: String? = nil, consent: String? = nil, appAccountToken: String? = nil) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.action = action
        self.productId = productId
        self.graceDays = graceDays
        self.reason = reason
        self.consent = consent
        self.appAccountToken = appAccountToken
    }
}

/// What a subscription change did: the period the notification is about, and the notification.
public struct FakeSubscriptionChangeResult: Sendable, Equatable {
    public var purchase: FakePurchase
    public var notificationType: String
    public var subtype: String?
}

extension FakePurchases {
    /// Apple's EXPIRED subtypes and the `expirationIntent` each records.
    static let expiryReasons: [String: (subtype: String, intent: Int)] = [
        "voluntary": ("VOLUNTARY", 1), "billing-retry": ("BILLING_RETRY", 2), "price-increase": ("PRICE_INCREASE", 3),
        "product-not-for-sale": ("PRODUCT_NOT_FOR_SALE", 4),
    ]

    /// The subscription's latest period (by purchase date), which holds its renewal info.
    public func latest(originalTransactionId: String, in environment: FakeEnvironment) -> FakePurchase? {
        state.withLock { state in
            state.purchases.filter { $0.environment == environment && $0.originalTransactionId == originalTransactionId }
                .max { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
        }
    }

    /// Applies `change` in one locked step; throws `FakeAdminError` for a change this subscription
    /// cannot take now (naming the field).
    public func change(_ change: FakeSubscriptionChange, environment: FakeEnvironment) throws -> FakeSubscriptionChangeResult {
        let now = Self.milliseconds(self.now())
        return try state.withLock { state in
            let periods = state.purchases.indices.filter {
                state.purchases[$0].environment == environment && state.purchases[$0].originalTransactionId == change.originalTransactionId
            }
            guard let position = periods.max(by: {
                (state.purchases[$0].purchaseDate, state.purchases[$0].transactionId) < (state.purchases[$1].purchaseDate, state.purchases[$1].transactionId)
            }) else {
                throw FakeAdminError.notFound("no subscription \(change.originalTransactionId) in \(environment.rawValue)")
            }
            var latest = state.purchases[position]
            guard latest.isSubscription else { throw FakeAdminError.badRequest("\(change.originalTransactionId) is not an auto-renewable subscription") }
            guard !latest.isRevoked else { throw FakeAdminError(409, "\(change.originalTransactionId) was revoked") }
            func product() throws -> String {
                guard let id = change.productId?.trimmingCharacters(in: .whitespaces), (1...200).contains(id.count) else {
                    throw FakeAdminError.badRequest("productId must be 1-200 characters for \(change.action.rawValue)")
                }
                guard id != latest.productId else { throw FakeAdminError(409, "productId is already the subscription's product") }
                return id
            }
            let result: FakeSubscriptionChangeResult
            switch change.action {
            case .upgrade:
                let to = try product()
                state.purchases[position].isUpgraded = true
                state.purchases[position].autoRenewProductId = nil
                Self.touch(position, &state)
                var next = latest
                next.transactionId = Self.newTransactionId(&state)
                next.webOrderLineItemId = Self.allocate(&state.nextWebOrder)
                next.productId = to
                next.purchaseDate = now
                next.expiresDate = now + ((latest.expiresDate ?? latest.purchaseDate) - latest.purchaseDate)
                next.transactionReason = "PURCHASE"
                next.orderId = Self.newOrderId(&state)
                next.isUpgraded = nil
                next.autoRenewProductId = nil
                next.autoRenewStatus = 1
                if let token = change.appAccountToken {
                    guard UUID(uuidString: token) != nil else { throw FakeAdminError.badRequest("appAccountToken must be a UUID") }
                    next.appAccountToken = token.lowercased()
                }
                Self.insert(next, into: &state)
                return FakeSubscriptionChangeResult(purchase: next, notificationType: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE")
            case .downgrade:
                latest.autoRenewProductId = try product()
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE")
            case .cancelDowngrade:
                guard latest.autoRenewProductId != nil else { throw FakeAdminError(409, "no downgrade is waiting") }
                latest.autoRenewProductId = nil
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "DID_CHANGE_RENEWAL_PREF", subtype: nil)
            case .autoRenewOff, .autoRenewOn:
                let on = change.action == .autoRenewOn
                guard latest.autoRenewStatus != (on ? 1 : 0) else { throw FakeAdminError(409, "auto-renew is already \(on ? "on" : "off")") }
                latest.autoRenewStatus = on ? 1 : 0
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "DID_CHANGE_RENEWAL_STATUS",
                                                      subtype: on ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED")
            case .billingFailure:
                let grace = change.graceDays ?? 0
                guard (0...60).contains(grace) else { throw FakeAdminError.badRequest("graceDays must be 0-60") }
                latest.isInBillingRetryPeriod = true
                latest.expirationIntent = 2
                latest.gracePeriodExpiresDate = grace > 0 ? now + Int64(grace) * 86_400_000 : nil
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "DID_FAIL_TO_RENEW",
                                                      subtype: grace > 0 ? "GRACE_PERIOD" : nil)
            case .graceExpired:
                guard latest.gracePeriodExpiresDate != nil else { throw FakeAdminError(409, "not in a grace period") }
                latest.gracePeriodExpiresDate = min(latest.gracePeriodExpiresDate ?? now, now)
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "GRACE_PERIOD_EXPIRED", subtype: nil)
            case .expire:
                guard let reason = Self.expiryReasons[change.reason ?? "voluntary"] else {
                    throw FakeAdminError.badRequest("reason must be one of \(Self.expiryReasons.keys.sorted().joined(separator: ", "))")
                }
                latest.expiresDate = max(latest.purchaseDate, min(latest.expiresDate ?? now, now))
                latest.autoRenewStatus = 0
                latest.isInBillingRetryPeriod = false
                latest.gracePeriodExpiresDate = nil
                latest.expirationIntent = reason.intent
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "EXPIRED", subtype: reason.subtype)
            case .priceIncrease:
                let consent = change.consent ?? "pending"
                guard consent == "pending" || consent == "agreed" else { throw FakeAdminError.badRequest("consent must be pending or agreed") }
                latest.priceIncreaseStatus = consent == "agreed" ? 1 : 0
                result = FakeSubscriptionChangeResult(purchase: latest, notificationType: "PRICE_INCREASE",
                                                      subtype: consent == "agreed" ? "ACCEPTED" : "PENDING")
            }
            state.purchases[position] = latest
            Self.touch(position, &state)
            return result
        }
    }
}
