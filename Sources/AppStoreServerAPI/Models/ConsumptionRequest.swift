import Foundation

/// Send Consumption Information's body (Apple's v2 `ConsumptionRequest`): what the backend knows
/// about a purchase Apple asked about in a `CONSUMPTION_REQUEST` notification (answer within 12
/// hours), for any product type. Apple refuses the request unless `customerConsented` is true.
public struct ConsumptionRequest: Encodable, Sendable, Hashable {
    /// Whether the app delivered a purchase that works (Apple's `deliveryStatus`).
    public enum DeliveryStatus: String, Sendable, Hashable, CaseIterable {
        case delivered = "DELIVERED"
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// The outcome the app's operator prefers (Apple's `refundPreference`); one factor among many
    /// in Apple's decision. Leaving it out states no preference.
    public enum RefundPreference: String, Sendable, Hashable, CaseIterable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        /// Needs `consumptionPercentage` above 0, except for auto-renewable subscriptions.
        case grantProrated = "GRANT_PRORATED"
    }

    public var customerConsented: Bool
    /// Whether a free sample, trial or description of the content was offered before purchase.
    public var sampleContentProvided: Bool
    public var deliveryStatus: DeliveryStatus
    /// How much was consumed, in milliunits (0–100,000); never for an auto-renewable subscription
    /// (Apple computes it), and 0 unless delivered. `nil`: not sent.
    public var consumptionPercentage: Int?
    /// `nil`: no preference (the field is not sent).
    public var refundPreference: RefundPreference?

    public init(customerConsented: Bool = true, sampleContentProvided: Bool = false, deliveryStatus: DeliveryStatus = .delivered,
                consumptionPercentage: Int? = nil, refundPreference: RefundPreference? = nil) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    enum CodingKeys: String, CodingKey {
        case customerConsented, sampleContentProvided, deliveryStatus, consumptionPercentage, refundPreference
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(customerConsented, forKey: .customerConsented)
        try c.encode(sampleContentProvided, forKey: .sampleContentProvided)
        try c.encode(deliveryStatus.rawValue, forKey: .deliveryStatus)
        try c.encodeIfPresent(consumptionPercentage, forKey: .consumptionPercentage)
        try c.encodeIfPresent(refundPreference?.rawValue, forKey: .refundPreference)
    }
}
