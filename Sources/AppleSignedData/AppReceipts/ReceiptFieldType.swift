/// The field types of Apple's receipt payload this code interprets. From Apple's "Receipt Fields"
/// table and its app-store-server-library; 1719 is the introductory-offer flag and 1721 the
/// promotional offer id (some write-ups mislabel these).
enum ReceiptFieldType {
    static let receiptType = 0
    static let bundleId = 2
    static let appVersion = 3
    static let opaqueValue = 4
    static let sha1Hash = 5
    static let creationDate = 12
    static let inAppPurchase = 17
    static let originalPurchaseDate = 18
    static let originalAppVersion = 19
    static let expirationDate = 21

    static let quantity = 1701
    static let productId = 1702
    static let transactionId = 1703
    static let purchaseDate = 1704
    static let originalTransactionId = 1705
    static let originalTransactionPurchaseDate = 1706
    static let subscriptionExpirationDate = 1708
    static let webOrderLineItemId = 1711
    static let cancellationDate = 1712
    static let isInTrialPeriod = 1713
    static let isInIntroOfferPeriod = 1719
    static let promotionalOfferId = 1721
}
