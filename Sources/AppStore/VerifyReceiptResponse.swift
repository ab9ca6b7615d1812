/// Apple's answer to verifyReceipt, decoded leniently: every field but `status` is optional, and
/// identifiers and flags are accepted in each spelling Apple uses. Unknown fields are ignored.
public struct VerifyReceiptResponse: Sendable, Decodable {
    /// Apple's status code (0 valid; see `VerifyReceiptStatus`).
    public var status: Int
    /// The environment that produced the receipt, as Apple reports it; `nil` if absent or unknown.
    public var environment: VerifyReceiptEnvironment?
    /// The decoded receipt (absent on most errors).
    public var receipt: AppReceipt?
    /// Latest renewal transactions of auto-renewable subscriptions (empty if none).
    public var latestReceiptInfo: [InAppTransaction]
    /// Renewal state of each subscription (empty if none).
    public var pendingRenewalInfo: [PendingRenewalInfo]
    /// Apple's newest base64 receipt, for subscriptions.
    public var latestReceipt: String?
    /// Apple's retry hint for 21100–21199, sent as `is_retryable` or `is-retryable`, bool or 0/1.
    public var isRetryable: Bool?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        guard let status = container.lenientString(AnyCodingKey("status")).flatMap({ Int($0) }) else {
            throw DecodingError.keyNotFound(AnyCodingKey("status"), .init(codingPath: [], debugDescription: "no integer status"))
        }
        self.status = status
        environment = container.lenientString(AnyCodingKey("environment")).flatMap(VerifyReceiptEnvironment.init(rawValue:))
        receipt = try? container.decodeIfPresent(AppReceipt.self, forKey: AnyCodingKey("receipt"))
        // An array since iOS 7; one object in the iOS 6 shape. Never fatal: an entry that does
        // not decode is left out, not the whole answer.
        latestReceiptInfo = container.lenientList(InAppTransaction.self, AnyCodingKey("latest_receipt_info"))
        pendingRenewalInfo = container.lenientList(PendingRenewalInfo.self, AnyCodingKey("pending_renewal_info"))
        latestReceipt = container.lenientString(AnyCodingKey("latest_receipt"))
        isRetryable = container.lenientBool(AnyCodingKey("is_retryable")) ?? container.lenientBool(AnyCodingKey("is-retryable"))
    }
}

/// The `receipt` object: the app it belongs to and its in-app purchases. Since iOS 7 the
/// purchases are in `in_app`; in the iOS 6 shape (the seeds' example) the receipt *is* one
/// purchase — its fields sit directly in `receipt`, and the bundle id is `bid`.
public struct AppReceipt: Sendable, Decodable {
    public var bundleID: String
    public var applicationVersion: String?
    public var originalApplicationVersion: String?
    /// "Production", "ProductionSandbox", … as Apple reports it.
    public var receiptType: String?
    /// Every in-app transaction in the receipt (empty when the app sold nothing yet).
    public var inApp: [InAppTransaction]
    /// When the device's receipt was made (`receipt_creation_date_ms`); nil in the iOS 6 shape.
    public var receiptCreationDateMs: Int64?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        bundleID = container.lenientString(AnyCodingKey("bundle_id")) ?? container.lenientString(AnyCodingKey("bid")) ?? ""
        applicationVersion = container.lenientString(AnyCodingKey("application_version")) ?? container.lenientString(AnyCodingKey("bvrs"))
        originalApplicationVersion = container.lenientString(AnyCodingKey("original_application_version"))
        receiptType = container.lenientString(AnyCodingKey("receipt_type"))
        receiptCreationDateMs = container.lenientString(AnyCodingKey("receipt_creation_date_ms")).flatMap { Int64($0) }
        if container.contains(AnyCodingKey("in_app")) {
            inApp = container.lenientList(InAppTransaction.self, AnyCodingKey("in_app"))
        } else if container.lenientString(AnyCodingKey("transaction_id")) != nil, let single = try? InAppTransaction(from: decoder) {
            inApp = [single]   // iOS 6: the receipt's own fields are the purchase
        } else {
            inApp = []
        }
    }
}
