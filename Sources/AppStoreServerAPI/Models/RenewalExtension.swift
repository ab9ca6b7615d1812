/// Why a renewal date is extended (Apple's `extendReasonCode`).
public enum ExtendReasonCode: Int, Sendable, Hashable, CaseIterable, Codable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3
}

/// Extend a Subscription Renewal Date's body. Apple accepts 1–90 days; `requestIdentifier` (at
/// most 128 characters) makes a retry of the same request harmless.
public struct ExtendRenewalDateRequest: Encodable, Sendable, Hashable {
    public var extendByDays: Int
    public var extendReasonCode: ExtendReasonCode
    public var requestIdentifier: String

    public init(extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

/// Extend a Subscription Renewal Date's answer.
public struct ExtendRenewalDateResponse: Decodable, Sendable, Hashable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new expiry, UNIX milliseconds.
    public var effectiveDate: Int64?

    public init(originalTransactionId: String? = nil, webOrderLineItemId: String? = nil, success: Bool? = nil, effectiveDate: Int64? = nil) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }

    enum CodingKeys: String, CodingKey { case originalTransactionId, webOrderLineItemId, success, effectiveDate }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionId = c.lenient(.originalTransactionId)
        webOrderLineItemId = c.lenient(.webOrderLineItemId)
        success = c.lenient(.success)
        effectiveDate = c.lenient(.effectiveDate)
    }
}

/// Extend Subscription Renewal Dates for All Active Subscribers' body: one product, optionally
/// only some storefronts (ISO 3166-1 alpha-3 codes).
public struct MassExtendRenewalDateRequest: Encodable, Sendable, Hashable {
    public var extendByDays: Int
    public var extendReasonCode: ExtendReasonCode
    public var requestIdentifier: String
    public var productId: String
    public var storefrontCountryCodes: [String]?

    public init(extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String, productId: String,
                storefrontCountryCodes: [String]? = nil) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.productId = productId
        self.storefrontCountryCodes = storefrontCountryCodes
    }
}

/// The mass extension's answer: the request identifier to poll with.
public struct MassExtendRenewalDateResponse: Decodable, Sendable, Hashable {
    public var requestIdentifier: String?

    public init(requestIdentifier: String? = nil) { self.requestIdentifier = requestIdentifier }

    enum CodingKeys: String, CodingKey { case requestIdentifier }

    public init(from decoder: any Decoder) throws {
        requestIdentifier = try decoder.container(keyedBy: CodingKeys.self).lenient(.requestIdentifier)
    }
}

/// Get Status of Subscription Renewal Date Extensions' answer.
public struct MassExtensionStatusResponse: Decodable, Sendable, Hashable {
    public var requestIdentifier: String?
    public var complete: Bool?
    /// UNIX milliseconds.
    public var completeDate: Int64?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init(requestIdentifier: String? = nil, complete: Bool? = nil, completeDate: Int64? = nil,
                succeededCount: Int64? = nil, failedCount: Int64? = nil) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }

    enum CodingKeys: String, CodingKey { case requestIdentifier, complete, completeDate, succeededCount, failedCount }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestIdentifier = c.lenient(.requestIdentifier)
        complete = c.lenient(.complete)
        completeDate = c.lenient(.completeDate)
        succeededCount = c.lenient(.succeededCount)
        failedCount = c.lenient(.failedCount)
    }
}
