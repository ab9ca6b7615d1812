/// What Apple's server says a subscription will do at its period's end, as a `FakeReceipt`
/// carries it for the fake's verifyReceipt to answer in `pending_renewal_info` (JSON format only):
/// a receipt without any is answered with the default — it renews, to the same product.
///
/// ```json
/// {"original_transaction_id": "1000000001", "product_id": "com.example.basic",
///  "auto_renew_product_id": "com.example.lite", "auto_renew_status": false, "expiration_intent": "1",
///  "is_in_billing_retry_period": true, "grace_period_expires_date_ms": 1700000000000, "price_consent_status": "0"}
/// ```
public struct FakePendingRenewal: Codable, Sendable, Equatable {
    public var originalTransactionID: String
    /// The product of the current period.
    public var productID: String
    /// The product it renews to; another one while a downgrade or crossgrade waits. Default: `productID`.
    public var autoRenewProductID: String?
    /// Default true.
    public var autoRenewStatus: Bool?
    public var expirationIntent: String?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDateMs: Int64?
    /// "0" not yet agreed, "1" agreed.
    public var priceConsentStatus: String?

    public init(originalTransactionID: String, productID: String, autoRenewProductID: String? = nil, autoRenewStatus: Bool? = nil,
                expirationIntent: String? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDateMs: Int64? = nil,
                priceConsentStatus: String? = nil) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
        self.priceConsentStatus = priceConsentStatus
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id", productID = "product_id"
        case autoRenewProductID = "auto_renew_product_id", autoRenewStatus = "auto_renew_status"
        case expirationIntent = "expiration_intent", isInBillingRetryPeriod = "is_in_billing_retry_period"
        case gracePeriodExpiresDateMs = "grace_period_expires_date_ms", priceConsentStatus = "price_consent_status"
    }

    /// As Apple writes it: every value a string.
    var wire: [String: Any] {
        var object: [String: Any] = [
            "original_transaction_id": originalTransactionID, "product_id": productID,
            "auto_renew_product_id": autoRenewProductID ?? productID, "auto_renew_status": autoRenewStatus == false ? "0" : "1",
        ]
        if let expirationIntent { object["expiration_intent"] = expirationIntent }
        if let isInBillingRetryPeriod { object["is_in_billing_retry_period"] = isInBillingRetryPeriod ? "1" : "0" }
        if let gracePeriodExpiresDateMs { object["grace_period_expires_date_ms"] = String(gracePeriodExpiresDateMs) }
        if let priceConsentStatus { object["price_consent_status"] = priceConsentStatus }
        return object
    }
}
