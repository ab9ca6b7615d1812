import Foundation

/// Signs the JWS a StoreKit 2 app passes with a purchase (Apple: "Generating JWS to sign App Store
/// requests"): a promotional offer (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`), an
/// introductory offer eligibility override, or an Advanced Commerce in-app request. ES256 with the
/// In-App Purchase key, header `{alg, kid, typ: JWT}`, and the claims Apple's App Store Server
/// Library's `JWSSignatureCreator` writes: the kind's own, then `bid`, `iss`, `aud` (the kind),
/// `iat` (seconds) and a fresh `nonce` (a lowercased UUID).
public struct StoreKitRequestSigner: Sendable {
    /// Which request a JWS signs: its `aud` claim.
    public enum Kind: String, Sendable, CaseIterable {
        case promotionalOffer = "promotional-offer"
        case introductoryOfferEligibility = "introductory-offer-eligibility"
        case advancedCommerceInApp = "advanced-commerce-api"
    }

    private let signer: ES256JWSSigner
    public let keyId: String
    public let issuerId: String
    public let bundleId: String

    public init(key: AppStoreConnectKey, issuerId: String, bundleId: String) throws {
        self.signer = try ES256JWSSigner(privateKey: key.privateKey, header: JWSHeader(kid: key.keyId, typ: "JWT"))
        self.keyId = key.keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    /// A promotional offer for `productId`; `transactionId` is any transaction of the customer's
    /// (their appTransactionId will do): optional, and Apple recommends it.
    public func promotionalOffer(productId: String, offerId: String, transactionId: String?, nonce: UUID = UUID(),
                                 at date: Date = Date()) throws -> String {
        var claims = Claims(kind: .promotionalOffer)
        claims.productId = productId
        claims.offerIdentifier = offerId
        claims.transactionId = transactionId
        return try sign(claims, nonce: nonce, at: date)
    }

    /// Whether the customer may have `productId`'s introductory offer, overriding the App Store's
    /// own judgement; `transactionId` (any of the customer's, or their appTransactionId) is required.
    public func introductoryOfferEligibility(productId: String, allowIntroductoryOffer: Bool, transactionId: String,
                                             nonce: UUID = UUID(), at date: Date = Date()) throws -> String {
        var claims = Claims(kind: .introductoryOfferEligibility)
        claims.productId = productId
        claims.allowIntroductoryOffer = allowIntroductoryOffer
        claims.transactionId = transactionId
        return try sign(claims, nonce: nonce, at: date)
    }

    /// An Advanced Commerce in-app request: `requestJSON` (the request object, JSON) travels as
    /// the `request` claim, standard base64.
    public func advancedCommerceInApp(requestJSON: Data, nonce: UUID = UUID(), at date: Date = Date()) throws -> String {
        var claims = Claims(kind: .advancedCommerceInApp)
        claims.request = requestJSON.base64EncodedString()
        return try sign(claims, nonce: nonce, at: date)
    }

    private func sign(_ claims: Claims, nonce: UUID, at date: Date) throws -> String {
        var claims = claims
        claims.bid = bundleId
        claims.iss = issuerId
        claims.iat = Int64(date.timeIntervalSince1970.rounded(.down))
        claims.nonce = nonce.uuidString.lowercased()
        return try signer.sign(claims)
    }

    /// Every claim any kind writes; absent ones are left out of the JSON.
    struct Claims: Codable, Equatable {
        var aud: String
        var bid: String?
        var iss: String?
        var iat: Int64?
        var nonce: String?
        var productId: String?
        var offerIdentifier: String?
        var transactionId: String?
        var allowIntroductoryOffer: Bool?
        var request: String?

        init(kind: Kind) { aud = kind.rawValue }
    }
}
