import Foundation

/// Send Consumption Information's body: what the backend knows about a consumable (or subscription)
/// Apple asked about in a `CONSUMPTION_REQUEST` notification (answer within 12 hours). The integer
/// fields take Apple's documented codes (0 = undeclared for most). Apple refuses the request unless
/// `customerConsented` is true.
public struct ConsumptionRequest: Encodable, Sendable, Hashable {
    public var customerConsented: Bool
    /// 0 undeclared, 1 not consumed, 2 partially, 3 fully.
    public var consumptionStatus: Int
    /// 0 undeclared, 1 Apple, 2 non-Apple.
    public var platform: Int
    public var sampleContentProvided: Bool
    /// 0 delivered and working, 1–5 the ways delivery failed.
    public var deliveryStatus: Int
    /// The UUID the app set at purchase; sent as an empty string when unknown, as Apple expects.
    public var appAccountToken: UUID?
    /// 0 undeclared, 1–7 account age bands.
    public var accountTenure: Int
    /// 0 undeclared, 1–7 play time bands.
    public var playTime: Int
    /// 0 undeclared, 1–8 dollar bands.
    public var lifetimeDollarsRefunded: Int
    public var lifetimeDollarsPurchased: Int
    /// 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.
    public var userStatus: Int
    /// 0 undeclared, 1 grant, 2 decline, 3 no preference. Optional for Apple.
    public var refundPreference: Int?

    public init(customerConsented: Bool = true, consumptionStatus: Int = 0, platform: Int = 0, sampleContentProvided: Bool = false,
                deliveryStatus: Int = 0, appAccountToken: UUID? = nil, accountTenure: Int = 0, playTime: Int = 0,
                lifetimeDollarsRefunded: Int = 0, lifetimeDollarsPurchased: Int = 0, userStatus: Int = 0, refundPreference: Int? = nil) {
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }

    enum CodingKeys: String, CodingKey {
        case customerConsented, consumptionStatus, platform, sampleContentProvided, deliveryStatus, appAccountToken,
             accountTenure, playTime, lifetimeDollarsRefunded, lifetimeDollarsPurchased, userStatus, refundPreference
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(customerConsented, forKey: .customerConsented)
        try c.encode(consumptionStatus, forKey: .consumptionStatus)
        try c.encode(platform, forKey: .platform)
        try c.encode(sampleContentProvided, forKey: .sampleContentProvided)
        try c.encode(deliveryStatus, forKey: .deliveryStatus)
        try c.encode(appAccountToken.map { $0.uuidString.lowercased() } ?? "", forKey: .appAccountToken)
        try c.encode(accountTenure, forKey: .accountTenure)
        try c.encode(playTime, forKey: .playTime)
        try c.encode(lifetimeDollarsRefunded, forKey: .lifetimeDollarsRefunded)
        try c.encode(lifetimeDollarsPurchased, forKey: .lifetimeDollarsPurchased)
        try c.encode(userStatus, forKey: .userStatus)
        try c.encodeIfPresent(refundPreference, forKey: .refundPreference)
    }
}
