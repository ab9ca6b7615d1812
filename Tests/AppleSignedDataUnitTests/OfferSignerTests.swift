import Crypto
import Foundation
import Testing
@testable import AppleSignedData

/// Offer signatures as Apple's App Store Server Library makes them (its creators' source, 3.1.2):
/// the same text or claims, checked with the key's public half. Apple's library itself checks
/// what the API signs in `OfferSignatureLibraryTests` (API integration tests).
@Suite("Offer signatures: StoreKit 1 promotional offers and StoreKit 2 signed requests")
struct OfferSignerTests {
    static let key = AppStoreConnectKey(privateKey: P256.Signing.PrivateKey(), keyId: "OFFERKEY01")
    static let nonce = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let date = Date(timeIntervalSince1970: 1_780_000_000.123_9)

    @Test func aPromotionalOfferSignsApplesSeparatedTextWithALowercasedNonceAndUsername() throws {
        let signer = PromotionalOfferSigner(key: Self.key, bundleId: "com.example.app")
        let signed = try signer.sign(productId: "pro.monthly", offerId: "winback", applicationUsername: "ABC-User", nonce: Self.nonce, at: Self.date)
        #expect(signed.keyId == "OFFERKEY01")
        #expect(signed.nonce == Self.nonce)
        #expect(signed.timestamp == 1_780_000_000_123)   // milliseconds, rounded down
        let text = "com.example.app\u{2063}OFFERKEY01\u{2063}pro.monthly\u{2063}winback\u{2063}abc-user\u{2063}e621e1f8-c36c-495a-93fc-0c247a3e6e5f\u{2063}1780000000123"
        #expect(PromotionalOfferSigner.payload(bundleId: "com.example.app", keyId: "OFFERKEY01", productId: "pro.monthly", offerId: "winback",
                                               applicationUsername: "ABC-User", nonce: Self.nonce, timestamp: 1_780_000_000_123) == text)
        let der = try #require(Data(base64Encoded: signed.signature))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(text.utf8)))
        // Any other field changes what was signed.
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Data(text.replacingOccurrences(of: "winback", with: "welcome").utf8)))
    }

    @Test func aPromotionalOfferWithoutAUsernameSignsAnEmptyField() throws {
        let text = PromotionalOfferSigner.payload(bundleId: "b", keyId: "k", productId: "p", offerId: "o", applicationUsername: "",
                                                  nonce: Self.nonce, timestamp: 1)
        #expect(text.split(separator: "\u{2063}", omittingEmptySubsequences: false).map(String.init)
                == ["b", "k", "p", "o", "", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "1"])
    }

    @Test func eachSignatureHasAFreshNonceByDefault() throws {
        let signer = PromotionalOfferSigner(key: Self.key, bundleId: "com.example.app")
        let nonces = try (0..<20).map { _ in try signer.sign(productId: "p", offerId: "o", applicationUsername: "").nonce }
        #expect(Set(nonces).count == 20)
    }

    /// The header and claims of a signed request, its signature checked.
    static func open(_ jws: String) throws -> (header: [String: String], claims: [String: Any]) {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let raw = try #require(Base64URL.decode(Array(parts[2].utf8)))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: raw)
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        let headerBytes = try #require(Base64URL.decode(Array(parts[0].utf8)))
        let header = try JSONDecoder().decode([String: String].self, from: Data(headerBytes))
        let claimBytes = try #require(Base64URL.decode(Array(parts[1].utf8)))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
        return (header, claims)
    }

    @Test func aPromotionalOfferV2CarriesApplesClaimsAndAudience() throws {
        let signer = try StoreKitRequestSigner(key: Self.key, issuerId: "issuer-1", bundleId: "com.example.app")
        let (header, claims) = try Self.open(try signer.promotionalOffer(productId: "pro.monthly", offerId: "winback", transactionId: "2000000000000001",
                                                                          nonce: Self.nonce, at: Self.date))
        #expect(header == ["alg": "ES256", "kid": "OFFERKEY01", "typ": "JWT"])
        #expect(claims["aud"] as? String == "promotional-offer")
        #expect(claims["bid"] as? String == "com.example.app")
        #expect(claims["iss"] as? String == "issuer-1")
        #expect(claims["iat"] as? Int == 1_780_000_000)
        #expect(claims["nonce"] as? String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(claims["productId"] as? String == "pro.monthly")
        #expect(claims["offerIdentifier"] as? String == "winback")
        #expect(claims["transactionId"] as? String == "2000000000000001")
        #expect(Set(claims.keys) == ["aud", "bid", "iss", "iat", "nonce", "productId", "offerIdentifier", "transactionId"])
        // Without a transaction id the claim is left out, not null.
        let (_, bare) = try Self.open(try signer.promotionalOffer(productId: "p", offerId: "o", transactionId: nil))
        #expect(bare["transactionId"] == nil)
    }

    @Test func anIntroductoryOfferEligibilityCarriesTheDecisionAndTheTransaction() throws {
        let signer = try StoreKitRequestSigner(key: Self.key, issuerId: "issuer-1", bundleId: "com.example.app")
        for allow in [true, false] {
            let (_, claims) = try Self.open(try signer.introductoryOfferEligibility(productId: "pro.monthly", allowIntroductoryOffer: allow,
                                                                                   transactionId: "2000000000000001"))
            #expect(claims["aud"] as? String == "introductory-offer-eligibility")
            #expect(claims["allowIntroductoryOffer"] as? Bool == allow)
            #expect(claims["transactionId"] as? String == "2000000000000001")
            #expect(Set(claims.keys) == ["aud", "bid", "iss", "iat", "nonce", "productId", "allowIntroductoryOffer", "transactionId"])
        }
    }

    @Test func anAdvancedCommerceRequestTravelsAsBase64JSON() throws {
        let signer = try StoreKitRequestSigner(key: Self.key, issuerId: "issuer-1", bundleId: "com.example.app")
        let request = Data(#"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1"}"#.utf8)
        let (_, claims) = try Self.open(try signer.advancedCommerceInApp(requestJSON: request))
        #expect(claims["aud"] as? String == "advanced-commerce-api")
        #expect((claims["request"] as? String).flatMap { Data(base64Encoded: $0) } == request)
        #expect(Set(claims.keys) == ["aud", "bid", "iss", "iat", "nonce", "request"])
    }
}
