import Crypto
import Foundation

/// Signs StoreKit 1 promotional offers (`SKPaymentDiscount`): ECDSA P-256 with SHA-256 over the
/// bundle id, key id, product id, offer id, application username (lowercased), nonce (lowercased)
/// and timestamp (milliseconds), joined by U+2063 INVISIBLE SEPARATOR — exactly what Apple's App
/// Store Server Library's `PromotionalOfferSignatureCreator` signs, so the App Store accepts either.
/// The signature is DER, standard base64, as the app hands it to StoreKit.
///
/// The key is an In-App Purchase key from App Store Connect (the same kind of `.p8` the App Store
/// Server API takes). A fresh nonce each time: Apple refuses a nonce it has seen, and a signature
/// is good for 24 hours from its timestamp.
public struct PromotionalOfferSigner: Sendable {
    public let key: AppStoreConnectKey
    public let bundleId: String

    public init(key: AppStoreConnectKey, bundleId: String) {
        self.key = key
        self.bundleId = bundleId
    }

    /// What the app passes to `SKPaymentDiscount(identifier:keyIdentifier:nonce:signature:timestamp:)`.
    public struct Signature: Sendable, Equatable {
        public var keyId: String
        public var nonce: UUID
        /// Milliseconds since 1970.
        public var timestamp: Int64
        /// DER ECDSA signature, standard base64.
        public var signature: String
    }

    /// The signed text, as Apple's library builds it.
    public static func payload(bundleId: String, keyId: String, productId: String, offerId: String, applicationUsername: String,
                               nonce: UUID, timestamp: Int64) -> String {
        [bundleId, keyId, productId, offerId, applicationUsername.lowercased(), nonce.uuidString.lowercased(), String(timestamp)]
            .joined(separator: "\u{2063}")
    }

    /// - Parameter applicationUsername: what the app set as `SKMutablePayment.applicationUsername`
    ///   (an opaque, hashed account id or the appAccountToken); empty when it sets none.
    public func sign(productId: String, offerId: String, applicationUsername: String, nonce: UUID = UUID(),
                     at date: Date = Date()) throws -> Signature {
        let timestamp = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let text = Self.payload(bundleId: bundleId, keyId: key.keyId, productId: productId, offerId: offerId,
                                applicationUsername: applicationUsername, nonce: nonce, timestamp: timestamp)
        let signature = try key.privateKey.signature(for: Data(text.utf8))
        return Signature(keyId: key.keyId, nonce: nonce, timestamp: timestamp, signature: signature.derRepresentation.base64EncodedString())
    }
}
