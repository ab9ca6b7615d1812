import Foundation

/// Extend a Subscription Renewal Date, Extend Subscription Renewal Dates for All Active
/// Subscribers, and Get Status of Subscription Renewal Date Extensions, with Apple's request
/// checks and refusals. A single extension sends RENEWAL_EXTENDED about the subscription, as Apple
/// does; a mass extension completes at once (the fake sends no RENEWAL_EXTENSION summary).
extension FakeServerAPI {
    private struct ExtendBody: Encodable {
        var originalTransactionId: String
        var webOrderLineItemId: String?
        var success: Bool
        var effectiveDate: Int64?
    }

    private struct MassStatusBody: Encodable {
        var requestIdentifier: String
        var complete: Bool
        var completeDate: Int64
        var succeededCount: Int
        var failedCount: Int
    }

    private enum Parsed {
        case valid(FakeExtensionRequest)
        case refused(FakeServerAPIAnswer)
    }

    /// The fields both extension requests share, or Apple's refusal.
    private static func extensionRequest(_ json: [String: Any]) -> Parsed {
        guard let days = json["extendByDays"] as? Int, (1...90).contains(days) else {
            return .refused(.appleError(400, 4_000_009, "Invalid extend by days value."))
        }
        guard let reason = json["extendReasonCode"] as? Int, (0...3).contains(reason) else {
            return .refused(.appleError(400, 4_000_010, "Invalid extend reason code."))
        }
        guard let identifier = json["requestIdentifier"] as? String, (1...128).contains(identifier.count) else {
            return .refused(.appleError(400, 4_000_011, "Invalid request identifier."))
        }
        return .valid(FakeExtensionRequest(extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier))
    }

    private static func object(_ body: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    func extendRenewalDate(_ originalTransactionId: String, _ environment: FakeEnvironment, _ body: [UInt8]) -> FakeServerAPIAnswer {
        guard let json = Self.object(body) else { return .appleError(400, 4_000_000, "Invalid request.") }
        let request: FakeExtensionRequest
        switch Self.extensionRequest(json) {
        case .valid(let valid): request = valid
        case .refused(let refusal): return refusal
        }
        do throws(FakePurchases.ExtensionRefusal) {
            let (latest, extended) = try purchases.extend(originalTransactionId: originalTransactionId, in: environment, request)
            if extended { notify("RENEWAL_EXTENDED", about: latest) }
            return .json(200, ExtendBody(originalTransactionId: latest.originalTransactionId, webOrderLineItemId: latest.webOrderLineItemId,
                                         success: true, effectiveDate: latest.expiresDate))
        } catch {
            switch error {
            case .notFound: return .appleError(404, 4_040_005, "Original transaction id not found.")
            case .ineligible: return .appleError(403, 4_030_004, "Forbidden - subscription state ineligible for extension.")
            case .maximumReached: return .appleError(403, 4_030_005, "Forbidden - subscription has reached maximum extension count.")
            case .familyShared:
                return .appleError(403, 4_030_007, "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.")
            }
        }
    }

    func massExtendRenewalDate(_ environment: FakeEnvironment, _ body: [UInt8]) -> FakeServerAPIAnswer {
        guard let json = Self.object(body) else { return .appleError(400, 4_000_000, "Invalid request.") }
        let request: FakeExtensionRequest
        switch Self.extensionRequest(json) {
        case .valid(let valid): request = valid
        case .refused(let refusal): return refusal
        }
        guard let productId = json["productId"] as? String, !productId.isEmpty else {
            return .appleError(400, 4_000_023, "Invalid request. The product id parameter is invalid.")
        }
        var storefronts: [String]?
        if let given = json["storefrontCountryCodes"], !(given is NSNull) {
            guard let codes = given as? [String], !codes.isEmpty else {
                return .appleError(400, 4_000_027, "Invalid request. If provided, the list of storefront country codes must not be empty.")
            }
            guard codes.allSatisfy(FakePurchases.isCountryCode) else {
                return .appleError(400, 4_000_028, "Invalid request. A storefront country code was invalid.")
            }
            storefronts = codes
        }
        _ = purchases.massExtend(productId: productId, storefronts: storefronts, in: environment, request)
        return .json(200, ["requestIdentifier": request.requestIdentifier])
    }

    func massExtensionStatus(_ productId: String, _ requestIdentifier: String, _ environment: FakeEnvironment) -> FakeServerAPIAnswer {
        guard let status = purchases.massExtension(productId: productId, requestIdentifier: requestIdentifier, in: environment) else {
            return .appleError(404, 4_040_009, "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination.")
        }
        return .json(200, MassStatusBody(requestIdentifier: status.requestIdentifier, complete: true, completeDate: status.completeDate,
                                         succeededCount: status.succeededCount, failedCount: status.failedCount))
    }
}
