import Foundation

/// The fake App Store's receipt format, documented so tests, demos and benchmarks can mint
/// receipts the fake understands:
///
/// base64 of a JSON object
/// ```json
/// {"bundle_id": "com.example.app", "environment": "Production" | "Sandbox", "style": "ios6",
///  "in_app": [{"transaction_id": "1000000001", "original_transaction_id": "1000000001",
///              "product_id": "com.example.coins100", "quantity": 1,
///              "purchase_date_ms": 1700000000000, "expires_date_ms": 1702592000000,
///              "web_order_line_item_id": "2000000001", "in_app_ownership_type": "FAMILY_SHARED",
///              "cancellation_date_ms": 1700000100000, "refunded_after_receipt": true,
///              "app_account_token": "6F0E…"}],
///  "receipt_creation_date_ms": 1700000200000, "pending_renewal_info": [{…}],
///  "forced_status": 21003, "padding": "…"}
/// ```
/// `expires_date_ms` marks a subscription (it then appears in `latest_receipt_info` and
/// `pending_renewal_info`); `cancellation_date_ms` a refund, shown in `in_app` too unless
/// `refunded_after_receipt` (then only Apple's server-side copy, `latest_receipt_info`, has it);
/// `receipt_creation_date_ms` is answered as Apple answers it (absent: not answered, as for an
/// old receipt); `pending_renewal_info` (`FakePendingRenewal`) replaces the default renewal info
/// (it renews, to the same product); `style: "ios6"` answers in the iOS 6 shape (see `FakeBodies.valid`); `forced_status` makes the
/// fake answer that status whatever else it would do (tests of rare statuses); `padding` only
/// makes the receipt as large as a real one.
/// Anything that does not decode to this is answered 21002, like Apple answers garbage.
public struct FakeReceipt: Codable, Sendable, Equatable {
    public enum Environment: String, Codable, Sendable {
        case production = "Production"
        case sandbox = "Sandbox"
    }

    public var bundleID: String
    public var environment: Environment
    public var inApp: [FakeTransaction]
    public var forcedStatus: Int?
    /// `ios6`: answer in the iOS 6 shape. Default nil (iOS 7 and later).
    public var style: String?
    public var padding: String?
    /// When the receipt was made, in milliseconds since 1970; nil: not answered.
    public var creationDateMs: Int64?
    /// What Apple's server says each subscription does at renewal; nil: the default for each.
    public var pendingRenewalInfo: [FakePendingRenewal]?

    public init(
        bundleID: String, environment: Environment = .production, inApp: [FakeTransaction],
        forcedStatus: Int? = nil, style: String? = nil, padding: String? = nil, creationDateMs: Int64? = nil,
        pendingRenewalInfo: [FakePendingRenewal]? = nil
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.inApp = inApp
        self.forcedStatus = forcedStatus
        self.style = style
        self.padding = padding
        self.creationDateMs = creationDateMs
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id", environment, inApp = "in_app"
        case forcedStatus = "forced_status", style, padding
        case creationDateMs = "receipt_creation_date_ms", pendingRenewalInfo = "pending_renewal_info"
    }

    /// The receipt as an app would send it: base64 without line breaks.
    public func base64() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ((try? encoder.encode(self)) ?? Data()).base64EncodedString()
    }

    /// Decodes strict base64 (whitespace is not tolerated, as Apple does not tolerate it).
    public static func decode(base64: String) -> FakeReceipt? {
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode(FakeReceipt.self, from: data)
    }

    /// A receipt padded with filler so its base64 is about `bytes` long (real receipts are
    /// several kilobytes; benchmarks should send realistic bodies).
    public func padded(toBase64Length bytes: Int) -> FakeReceipt {
        var copy = self
        copy.padding = nil
        let missing = bytes - copy.base64().count
        if missing > 16 { copy.padding = String(repeating: "x", count: (missing - 16) * 3 / 4) }
        return copy
    }
}

/// One purchase inside a `FakeReceipt`.
public struct FakeTransaction: Codable, Sendable, Equatable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var quantity: Int
    public var purchaseDateMs: Int64
    /// Set for subscriptions only.
    public var expiresDateMs: Int64?
    /// A subscription period's id (renewals get a new one; restores keep it).
    public var webOrderLineItemID: String?
    /// `PURCHASED` or `FAMILY_SHARED`; nil: not sent (older receipts).
    public var ownershipType: String?
    /// Refunded or revoked at this time.
    public var cancellationDateMs: Int64?
    /// The refund came after the device's receipt was made: only `latest_receipt_info` shows it.
    public var refundedAfterReceipt: Bool?
    /// The UUID the app bought with (StoreKit 2's appAccountToken, or a UUID passed as StoreKit 1's
    /// applicationUsername): Apple returns it as `app_account_token`.
    public var appAccountToken: String?

    public init(
        transactionID: String, originalTransactionID: String? = nil, productID: String,
        quantity: Int = 1, purchaseDateMs: Int64 = 1_700_000_000_000, expiresDateMs: Int64? = nil,
        webOrderLineItemID: String? = nil, ownershipType: String? = nil, cancellationDateMs: Int64? = nil,
        refundedAfterReceipt: Bool? = nil, appAccountToken: String? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.webOrderLineItemID = webOrderLineItemID
        self.ownershipType = ownershipType
        self.cancellationDateMs = cancellationDateMs
        self.refundedAfterReceipt = refundedAfterReceipt
    }

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id", originalTransactionID = "original_transaction_id"
        case productID = "product_id", quantity, purchaseDateMs = "purchase_date_ms"
        case expiresDateMs = "expires_date_ms", webOrderLineItemID = "web_order_line_item_id"
        case ownershipType = "in_app_ownership_type", cancellationDateMs = "cancellation_date_ms"
        case refundedAfterReceipt = "refunded_after_receipt"
        case appAccountToken = "app_account_token"
    }
}
