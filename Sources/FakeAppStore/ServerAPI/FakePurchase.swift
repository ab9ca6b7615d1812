import Foundation

/// One transaction in the fake's state, with everything Apple signs into a transaction and a
/// renewal info. Admin requests create and change these (`FakePurchases`); the Server API
/// endpoints and notifications serve them signed. Encoded with Apple's field names, plus
/// `customer` (who owns it: histories are per customer) and `environment`.
public struct FakePurchase: Codable, Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    /// Subscriptions only: one per billing period.
    public var webOrderLineItemId: String?
    public var productId: String
    /// Apple's spelling: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`,
    /// `Non-Renewing Subscription`.
    public var type: String
    public var subscriptionGroupIdentifier: String?
    public var customer: String
    public var environment: FakeEnvironment
    /// Milliseconds since 1970, as every Apple date.
    public var purchaseDate: Int64
    public var originalPurchaseDate: Int64
    public var expiresDate: Int64?
    public var quantity: Int
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String
    public var revocationDate: Int64?
    /// 0: other reason; 1: an issue with the app.
    public var revocationReason: Int?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String
    /// Milliunits of `currency`.
    public var price: Int64
    public var currency: String
    public var storefront: String
    public var storefrontId: String
    /// Subscriptions: whether it renews (1) or the customer turned renewal off (0).
    public var autoRenewStatus: Int?
    /// The order on the customer's App Store receipt (Look Up Order ID); several purchases may
    /// share one. Each renewal is billed as a new order.
    public var orderId: String
    /// The customer's app download (Get App Transaction Info), one per customer and environment.
    public var appTransactionId: String
    /// Subscriptions: the renewal-date extensions granted (Extend a Subscription Renewal Date),
    /// oldest first; Apple allows two within 365 days. Carried from period to period.
    public var renewalExtensions: [FakeRenewalExtension]?

    public var isSubscription: Bool { type == FakeProductType.autoRenewable.rawValue }
    public var isRevoked: Bool { revocationDate != nil }
}

/// One renewal-date extension the fake granted a subscription.
public struct FakeRenewalExtension: Codable, Sendable, Equatable {
    public var requestIdentifier: String
    public var extendByDays: Int
    public var extendReasonCode: Int
    /// When it was granted, milliseconds since 1970.
    public var grantedAt: Int64
    /// The expiry it moved the period to.
    public var effectiveDate: Int64
    /// Granted by Extend Subscription Renewal Dates for All Active Subscribers.
    public var mass: Bool
}

/// The four product types, as Apple spells them, read from Apple's spelling or a short one.
public enum FakeProductType: String, Sendable, CaseIterable {
    case consumable = "Consumable"
    case nonConsumable = "Non-Consumable"
    case autoRenewable = "Auto-Renewable Subscription"
    case nonRenewing = "Non-Renewing Subscription"

    /// `Consumable` or `consumable`, `Non-Consumable` or `non-consumable`, `auto-renewable`,
    /// `non-renewing`, … Anything else is `nil`.
    public init?(loosely text: String) {
        let lowered = text.lowercased()
        if let exact = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) {
            self = exact
            return
        }
        switch lowered {
        case "auto-renewable", "subscription": self = .autoRenewable
        case "non-renewing": self = .nonRenewing
        default: return nil
        }
    }

    /// The `productType` query value of Get Transaction History.
    var historyFilterName: String {
        switch self {
        case .consumable: "CONSUMABLE"
        case .nonConsumable: "NON_CONSUMABLE"
        case .autoRenewable: "AUTO_RENEWABLE"
        case .nonRenewing: "NON_RENEWING"
        }
    }
}

/// What a new purchase should look like; everything but the product has a default.
public struct FakePurchaseRequest: Codable, Sendable, Equatable {
    public var productId: String
    /// Default: `Consumable`.
    public var type: String?
    /// Default: production.
    public var environment: String?
    /// Default: `customer-1`.
    public var customer: String?
    /// Default: the next id the fake hands out.
    public var transactionId: String?
    public var appAccountToken: String?
    /// Default: 1.
    public var quantity: Int?
    /// Default: 990 (9.99 in milliunits is 9990; the fake does not care).
    public var price: Int64?
    /// Default: USD.
    public var currency: String?
    /// Subscriptions. Default: `group-1`.
    public var subscriptionGroupIdentifier: String?
    /// Subscriptions: the period. Default: 30 days.
    public var expiresInSeconds: Int64?
    /// Default: now.
    public var purchaseDate: Int64?
    /// Send the notification Apple would (`ONE_TIME_CHARGE`, `SUBSCRIBED`). Default: true.
    public var notify: Bool?
    /// Join this order of the same customer and environment (one receipt e-mail, several
    /// purchases), or name a new one. Default: a new order id.
    public var orderId: String?
    /// The storefront's country code (ISO 3166-1 alpha-3). Default: USA.
    public var storefront: String?

    public init(productId: String, type: String? = nil, environment: String? = nil, customer: String? = nil,
                transactionId: String? = nil, appAccountToken: String? = nil, quantity: Int? = nil,
                subscriptionGroupIdentifier: String? = nil, expiresInSeconds: Int64? = nil, purchaseDate: Int64? = nil, notify: Bool? = nil,
                orderId: String? = nil, storefront: String? = nil) {
        self.productId = productId
        self.type = type
        self.environment = environment
        self.customer = customer
        self.transactionId = transactionId
        self.appAccountToken = appAccountToken
        self.quantity = quantity
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.expiresInSeconds = expiresInSeconds
        self.purchaseDate = purchaseDate
        self.notify = notify
        self.orderId = orderId
        self.storefront = storefront
    }
}
