import Foundation

/// A decoded transaction: `signedTransactionInfo` from the App Store Server API and Server
/// Notifications, or StoreKit 2's `Transaction.jwsRepresentation` sent by the app. Every field is
/// optional (see `LenientDecoding`); dates are Apple's milliseconds, with `Date` accessors beside.
public struct TransactionPayload: SignedPayload, Codable, Hashable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var quantity: Int?
    public var type: ProductType?
    /// The UUID the app set at purchase time; it ties the transaction to an order.
    public var appAccountToken: UUID?
    public var inAppOwnershipType: InAppOwnershipType?
    public var signedDate: Int64?
    public var revocationReason: Int?
    public var revocationDate: Int64?
    public var isUpgraded: Bool?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var environment: AppStoreEnvironment?
    public var storefront: String?
    public var storefrontId: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// Price in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var appTransactionId: String?

    /// Transactions do not carry the app Apple id.
    public var appAppleId: Int64? { nil }
    public static var requiredClaims: SignedPayloadClaims { [.bundleId, .environment] }

    public var purchasedAt: Date? { purchaseDate.map(Date.init(appStoreMilliseconds:)) }
    public var originallyPurchasedAt: Date? { originalPurchaseDate.map(Date.init(appStoreMilliseconds:)) }
    public var expiresAt: Date? { expiresDate.map(Date.init(appStoreMilliseconds:)) }
    public var revokedAt: Date? { revocationDate.map(Date.init(appStoreMilliseconds:)) }

    /// An empty transaction; set the fields you need (the fake App Store and tests build these).
    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        transactionId = c.lenient(.transactionId)
        originalTransactionId = c.lenient(.originalTransactionId)
        webOrderLineItemId = c.lenient(.webOrderLineItemId)
        bundleId = c.lenient(.bundleId)
        productId = c.lenient(.productId)
        subscriptionGroupIdentifier = c.lenient(.subscriptionGroupIdentifier)
        purchaseDate = c.lenient(.purchaseDate)
        originalPurchaseDate = c.lenient(.originalPurchaseDate)
        expiresDate = c.lenient(.expiresDate)
        quantity = c.lenient(.quantity)
        type = c.lenient(.type)
        appAccountToken = c.lenientUUID(.appAccountToken)
        inAppOwnershipType = c.lenient(.inAppOwnershipType)
        signedDate = c.lenient(.signedDate)
        revocationReason = c.lenient(.revocationReason)
        revocationDate = c.lenient(.revocationDate)
        isUpgraded = c.lenient(.isUpgraded)
        offerType = c.lenient(.offerType)
        offerIdentifier = c.lenient(.offerIdentifier)
        environment = c.lenient(.environment)
        storefront = c.lenient(.storefront)
        storefrontId = c.lenient(.storefrontId)
        transactionReason = c.lenient(.transactionReason)
        price = c.lenient(.price)
        currency = c.lenient(.currency)
        appTransactionId = c.lenient(.appTransactionId)
    }
}
