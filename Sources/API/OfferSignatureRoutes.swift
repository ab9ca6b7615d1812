import AppleSignedData
import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// POST /v1/users/{user_id}/offer-signatures: the backend asks for a signature the app passes to
/// StoreKit with a purchase — a StoreKit 1 promotional offer, or a StoreKit 2 promotional offer,
/// introductory offer eligibility or Advanced Commerce request — signed with the In-App Purchase
/// key, which never leaves the server. A fresh nonce each time.
///
/// StoreKit 2 signatures name one of the customer's transactions: the backend's, or else the
/// newest purchase the user owns in the ledger. One owned by another account is refused (403),
/// so an offer is never tied to someone else's purchase. Introductory offer eligibility comes
/// from the backend or the ledger (`IntroductoryOfferEligibility`). Nothing is stored, and the
/// signature is never logged.
struct OfferSignatureRoutes<Context: RequestContext> {
    let signing: OfferSigning?
    let pool: PostgresPool

    /// Bodies are a few hundred bytes; an Advanced Commerce request a few KiB.
    static var bodyLimit: Int { 16 * 1024 }

    func register(on group: RouterGroup<Context>) {
        group.post("users/:user_id/offer-signatures") { request, context in try await sign(request, context: context) }
    }

    /// What the app needs, and what was decided on its behalf.
    struct Answer: Encodable {
        var type: String
        var userId: String
        var bundleId: String
        var keyId: String
        /// The base64 DER signature (StoreKit 1) or the compact JWS (StoreKit 2).
        var signature: String
        var productId: String?
        var offerId: String?
        var applicationUsername: String?
        var nonce: String?
        var timestamp: Int64?
        var transactionId: String?
        var allowIntroductoryOffer: Bool?
        var eligibility: Eligibility?
    }

    struct Eligibility: Encodable {
        var source: String
        var subscriptionGroup: String?
        var subscribedInGroup: Bool?
    }

    func sign(_ request: Request, context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let body = try await JSONBody.read(request, limit: Self.bodyLimit)
        let fields = try JSONBody.decode(OfferSignatureRequest.self, from: body)
        let kind = try fields.kind()
        guard let signing else {
            throw Problem(.offerSigningNotConfigured, "start the API with --app-store-key-file and --app-store-key-id (an In-App Purchase key)")
        }
        let bundleID = try bundle(fields.bundleID, signing)
        var answer = Answer(type: kind.rawValue, userId: userID, bundleId: bundleID, keyId: signing.key.keyId, signature: "")
        switch kind {
        case .promotionalOffer:
            let productID = try FieldRules.identifier(fields.productID, "product_id")
            let offerID = try FieldRules.identifier(fields.offerID, "offer_id")
            let username = try fields.applicationUsername.map { try FieldRules.identifier($0, "application_username") } ?? ""
            let signed = try PromotionalOfferSigner(key: signing.key, bundleId: bundleID)
                .sign(productId: productID, offerId: offerID, applicationUsername: username)
            answer.signature = signed.signature
            (answer.productId, answer.offerId, answer.applicationUsername) = (productID, offerID, username)
            (answer.nonce, answer.timestamp) = (signed.nonce.uuidString.lowercased(), signed.timestamp)
        case .promotionalOfferV2:
            let signer = try storeKitSigner(signing, bundleID)
            let productID = try FieldRules.identifier(fields.productID, "product_id")
            let offerID = try FieldRules.identifier(fields.offerID, "offer_id")
            let history = try await history(userID: userID, productID: productID, fields: fields)
            let transactionID = fields.transactionID ?? history.latestOriginalTransactionId
            answer.signature = try signer.promotionalOffer(productId: productID, offerId: offerID, transactionId: transactionID)
            (answer.productId, answer.offerId, answer.transactionId) = (productID, offerID, transactionID)
        case .introductoryOfferEligibility:
            let signer = try storeKitSigner(signing, bundleID)
            let productID = try FieldRules.identifier(fields.productID, "product_id")
            let history = try await history(userID: userID, productID: productID, fields: fields)
            guard let transactionID = fields.transactionID ?? history.latestOriginalTransactionId else {
                throw Problem.invalid("transaction_id", "transaction_id is required: this user owns no purchase in the ledger; pass their appTransactionId")
            }
            let decision: IntroductoryOfferEligibility
            do {
                decision = try IntroductoryOfferEligibility.decide(requested: fields.allowIntroductoryOffer, history: history)
            } catch {
                throw Problem.invalid("allow_introductory_offer",
                                      "allow_introductory_offer is required: the catalog gives \(productID) no subscription group (receiptq products), so the ledger cannot decide")
            }
            answer.signature = try signer.introductoryOfferEligibility(productId: productID, allowIntroductoryOffer: decision.allow,
                                                                       transactionId: transactionID)
            (answer.productId, answer.transactionId, answer.allowIntroductoryOffer) = (productID, transactionID, decision.allow)
            answer.eligibility = Eligibility(source: decision.source, subscriptionGroup: decision.subscriptionGroup,
                                             subscribedInGroup: decision.subscribedInGroup)
        case .advancedCommerceInApp:
            let signer = try storeKitSigner(signing, bundleID)
            answer.signature = try signer.advancedCommerceInApp(requestJSON: try OfferSignatureRequest.advancedCommerceRequest(in: body))
        }
        return try JSONBody.response(answer)
    }

    /// The app named, one of the API's; the first by default.
    private func bundle(_ named: String?, _ signing: OfferSigning) throws -> String {
        guard let named else { return signing.bundleIds[0] }
        let bundleID = try FieldRules.identifier(named, "bundle_id")
        guard signing.bundleIds.contains(bundleID) else {
            throw Problem.invalid("bundle_id", "bundle_id must be one of this API's --bundle-ids")
        }
        return bundleID
    }

    private func storeKitSigner(_ signing: OfferSigning, _ bundleID: String) throws -> StoreKitRequestSigner {
        guard let issuerID = signing.issuerId else {
            throw Problem(.offerSigningNotConfigured, "StoreKit 2 signatures name the key's issuer: start the API with --app-store-issuer-id")
        }
        return try StoreKitRequestSigner(key: signing.key, issuerId: issuerID, bundleId: bundleID)
    }

    /// The ledger's view of the user, after checking that a named transaction is theirs (or unknown).
    private func history(userID: String, productID: String, fields: OfferSignatureRequest) async throws -> OfferHistory {
        let transactionID = try FieldRules.optionalIdentifier(fields.transactionID, "transaction_id")
        let history = try await pool.withConnection { try ReadOfferHistory.run(userID: userID, productID: productID, transactionID: transactionID, on: $0) }
        if let owner = history.namedTransactionOwner, owner != userID {
            throw Problem(.purchaseNotOwned, "transaction_id is another user's purchase")
        }
        return history
    }
}
