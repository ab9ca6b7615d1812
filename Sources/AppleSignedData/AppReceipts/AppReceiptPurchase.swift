import Foundation

/// One in-app purchase of an app receipt (field type 17): Apple's in-app purchase receipt fields,
/// field type in brackets. Consumables appear until the app finishes their transaction;
/// subscriptions once per period.
public struct AppReceiptPurchase: Hashable, Sendable {
    /// [1701] Number of items bought.
    public var quantity: Int?
    /// [1702] The product identifier.
    public var productId: String?
    /// [1703] This transaction's identifier.
    public var transactionId: String?
    /// [1704] When this transaction happened (for a renewal: when the period began).
    public var purchaseDate: Date?
    /// [1705] The identifier of the first transaction of this purchase (restores and renewals share it).
    public var originalTransactionId: String?
    /// [1706] When the original transaction happened.
    public var originalPurchaseDate: Date?
    /// [1708] When this subscription period ends. Apple writes an empty string for "none".
    public var subscriptionExpirationDate: Date?
    /// [1711] Identifies one subscription period across devices and restores: the grant key of a
    /// subscription period.
    public var webOrderLineItemId: Int64?
    /// [1712] When Apple refunded the transaction (or the subscription was upgraded). Apple writes an
    /// empty string for "none".
    public var cancellationDate: Date?
    /// [1713] Whether this period is a free trial.
    public var isInTrialPeriod: Bool?
    /// [1719] Whether this period is an introductory offer.
    public var isInIntroOfferPeriod: Bool?
    /// [1721] The promotional offer the user redeemed.
    public var promotionalOfferId: String?
    /// Fields of types this code does not interpret, kept raw in receipt order.
    public var otherAttributes: [AppReceiptAttribute]

    public init(
        quantity: Int? = nil,
        productId: String? = nil,
        transactionId: String? = nil,
        purchaseDate: Date? = nil,
        originalTransactionId: String? = nil,
        originalPurchaseDate: Date? = nil,
        subscriptionExpirationDate: Date? = nil,
        webOrderLineItemId: Int64? = nil,
        cancellationDate: Date? = nil,
        isInTrialPeriod: Bool? = nil,
        isInIntroOfferPeriod: Bool? = nil,
        promotionalOfferId: String? = nil,
        otherAttributes: [AppReceiptAttribute] = []
    ) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.purchaseDate = purchaseDate
        self.originalTransactionId = originalTransactionId
        self.originalPurchaseDate = originalPurchaseDate
        self.subscriptionExpirationDate = subscriptionExpirationDate
        self.webOrderLineItemId = webOrderLineItemId
        self.cancellationDate = cancellationDate
        self.isInTrialPeriod = isInTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.promotionalOfferId = promotionalOfferId
        self.otherAttributes = otherAttributes
    }
}
