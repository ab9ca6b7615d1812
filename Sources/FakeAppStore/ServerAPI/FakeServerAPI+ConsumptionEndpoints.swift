import Foundation

/// Send Consumption Information, v2 (`ConsumptionRequest`: consent, sample, delivery status,
/// consumption percentage, refund preference) and Apple's deprecated v1, checked with Apple's
/// documented refusals and recorded for tests (`consumptionReports()`).
extension FakeServerAPI {
    static let deliveryStatuses: Set<String> = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER",
    ]
    static let refundPreferences: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    /// Apple's documentation names these refusals without numbers we could confirm
    /// (ConsumptionPercentageOutOfRangeError, UndeliveredConsumptionPercentageNonZeroError); the
    /// fake answers them with the general bad-request code and the refusal's name in the message.
    static let unconfirmedConsumptionCode: Int64 = 4_000_000

    func consumption(_ id: String, _ environment: FakeEnvironment, _ body: [UInt8], _ now: Date) -> FakeServerAPIAnswer {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .appleError(400, 4_000_000, "Invalid request.")
        }
        guard json["customerConsented"] as? Bool == true else {
            return .appleError(400, 4_000_035, "Invalid request. The customer consented field is required and must indicate the customer consented.")
        }
        guard json["sampleContentProvided"] is Bool else {
            return .appleError(400, 4_000_041, "Invalid request. The sample content provided field is invalid.")
        }
        guard let delivery = json["deliveryStatus"] as? String, Self.deliveryStatuses.contains(delivery) else {
            return .appleError(400, 4_000_036, "Invalid request. The delivery status field is invalid.")
        }
        let preference = json["refundPreference"]
        guard preference == nil || (preference as? String).map(Self.refundPreferences.contains) == true else {
            return .appleError(400, 4_000_044, "Invalid request. The refund preference field is invalid.")
        }
        let percentage = json["consumptionPercentage"]
        var consumed: Int?
        if let percentage {
            guard let value = percentage as? Int, (0...100_000).contains(value) else {
                return .appleError(400, Self.unconfirmedConsumptionCode, "Invalid request. ConsumptionPercentageOutOfRangeError: 0-100000 milliunits.")
            }
            consumed = value
        }
        guard let purchase = purchases.transaction(id, in: environment) else { return Self.transactionNotFound }
        guard purchase.inAppOwnershipType == "PURCHASED" else {
            return .appleError(400, 4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
        }
        if let consumed {
            guard !purchase.isSubscription else {
                return .appleError(400, 4_000_209, "Invalid request. The consumption percentage field is not supported for auto-renewable subscription transactions.")
            }
            guard delivery == "DELIVERED" || consumed == 0 else {
                return .appleError(400, Self.unconfirmedConsumptionCode, "Invalid request. UndeliveredConsumptionPercentageNonZeroError: must be 0 unless DELIVERED.")
            }
        }
        if preference as? String == "GRANT_PRORATED", !purchase.isSubscription, (consumed ?? 0) == 0 {
            return .appleError(400, Self.unconfirmedConsumptionCode, "Invalid request. ConsumptionPercentageOutOfRangeError: GRANT_PRORATED needs a consumption percentage above 0.")
        }
        record(FakeConsumptionReport(transactionId: id, environment: environment, body: String(decoding: body, as: UTF8.self),
                                     receivedAt: FakePurchases.milliseconds(now), version: 2))
        return FakeServerAPIAnswer(status: 202)
    }

    /// Apple's deprecated v1 (`ConsumptionRequestV1`): still served, with its consent check.
    func consumptionV1(_ id: String, _ environment: FakeEnvironment, _ body: [UInt8], _ now: Date) -> FakeServerAPIAnswer {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .appleError(400, 4_000_000, "Invalid request.")
        }
        guard json["customerConsented"] as? Bool == true else {
            return .appleError(400, 4_000_035, "Invalid customer consented.")
        }
        guard purchases.transaction(id, in: environment) != nil else { return Self.transactionNotFound }
        record(FakeConsumptionReport(transactionId: id, environment: environment, body: String(decoding: body, as: UTF8.self),
                                     receivedAt: FakePurchases.milliseconds(now), version: 1))
        return FakeServerAPIAnswer(status: 202)
    }
}
