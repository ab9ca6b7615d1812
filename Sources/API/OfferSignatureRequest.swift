import Foundation

/// The body of POST /v1/users/{user_id}/offer-signatures: which signature (`type`) and its fields.
/// Decoded leniently (every member optional) so a missing field is named in a 400.
struct OfferSignatureRequest: Decodable {
    /// Which signature, and what the app does with it.
    enum Kind: String, CaseIterable {
        /// StoreKit 1: `SKPaymentDiscount(identifier:keyIdentifier:nonce:signature:timestamp:)`.
        case promotionalOffer = "promotional_offer"
        /// StoreKit 2: `Product.PurchaseOption.promotionalOffer(_:compactJWS:)`.
        case promotionalOfferV2 = "promotional_offer_v2"
        /// StoreKit 2: `Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`.
        case introductoryOfferEligibility = "introductory_offer_eligibility"
        /// StoreKit 2, Advanced Commerce API: the signed in-app request.
        case advancedCommerceInApp = "advanced_commerce_in_app"
    }

    var type: String?
    var bundleID: String?
    var productID: String?
    var offerID: String?
    var applicationUsername: String?
    var transactionID: String?
    var allowIntroductoryOffer: Bool?

    enum CodingKeys: String, CodingKey {
        case type
        case bundleID = "bundle_id"
        case productID = "product_id"
        case offerID = "offer_id"
        case applicationUsername = "application_username"
        case transactionID = "transaction_id"
        case allowIntroductoryOffer = "allow_introductory_offer"
    }

    func kind() throws -> Kind {
        guard let type else { throw Problem.invalid("type", "type is required") }
        guard let kind = Kind(rawValue: type) else {
            throw Problem.invalid("type", "type must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    /// The Advanced Commerce request object of `body`, as JSON bytes to sign; the typed decoding
    /// above does not keep it.
    static func advancedCommerceRequest(in body: Data) throws -> Data {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let request = object["request"] else {
            throw Problem.invalid("request", "request is required: the Advanced Commerce request object to sign")
        }
        guard let fields = request as? [String: Any], !fields.isEmpty else {
            throw Problem.invalid("request", "request must be a non-empty JSON object")
        }
        return try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
