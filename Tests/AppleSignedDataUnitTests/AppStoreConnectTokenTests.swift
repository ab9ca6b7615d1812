import Crypto
import Foundation
import Synchronization
import Testing
@testable import AppleSignedData

/// A wall clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

@Suite("App Store Connect API token")
struct AppStoreConnectTokenTests {
    let privateKey = P256.Signing.PrivateKey()
    let clock = ManualClock(reference)

    func provider(lifetime: Duration = .seconds(20 * 60)) throws -> AppStoreConnectTokenProvider {
        let key = try AppStoreConnectKey(pem: privateKey.pemRepresentation, keyId: "2X9R4HXF34")
        let clock = self.clock
        return try AppStoreConnectTokenProvider(
            configuration: .init(key: key, issuerId: "57246542-96fe-1a63-e053-0824d011072a", bundleId: bundleId, lifetime: lifetime),
            now: { clock.now }
        )
    }

    func json(_ segment: Substring) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(Array(segment.utf8)))
        return try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theTokenCarriesApplesHeaderAndClaimsAndVerifiesWithThePublicKey() throws {
        let token = try provider().token()
        let parts = token.jwt.split(separator: ".")
        #expect(parts.count == 3)
        let header = try json(parts[0])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "2X9R4HXF34")
        #expect(header["typ"] as? String == "JWT")
        #expect(header["x5c"] == nil)
        let claims = try json(parts[1])
        let issuedAt = Int64(reference.timeIntervalSince1970)
        #expect(claims["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect((claims["iat"] as? NSNumber)?.int64Value == issuedAt)
        #expect((claims["exp"] as? NSNumber)?.int64Value == issuedAt + 20 * 60)
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == bundleId)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(Array(parts[2].utf8))))
        #expect(privateKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(token.bearerHeaderValue == "Bearer " + token.jwt)
    }

    @Test func aTokenIsReusedUntilAMinuteBeforeItExpiresThenReplaced() throws {
        let provider = try provider()
        let first = try provider.token()
        clock.advance(by: 10 * 60)
        #expect(try provider.token().jwt == first.jwt)
        clock.advance(by: 9 * 60 - 1)   // 18:59 in: 61 s left
        #expect(try provider.token().jwt == first.jwt)
        clock.advance(by: 1)            // 60 s left: replace
        let second = try provider.token()
        #expect(second.jwt != first.jwt)
        #expect(second.expiresAt == reference.addingTimeInterval(19 * 60 + 20 * 60))
        #expect(try provider.token().jwt == second.jwt)
    }

    @Test func aClockThatWentBackwardsGetsAFreshToken() throws {
        let provider = try provider()
        let first = try provider.token()
        clock.advance(by: -120)
        #expect(try provider.token().jwt != first.jwt)
    }

    @Test func lifetimesOfAnHourOrMoreAreRefused() throws {
        #expect(throws: AppStoreConnectKeyError.lifetimeOutOfRange) { try provider(lifetime: .seconds(3_600)) }
        #expect(throws: AppStoreConnectKeyError.lifetimeOutOfRange) { try provider(lifetime: .seconds(30)) }
        _ = try provider(lifetime: .seconds(59 * 60))
    }

    @Test func aMalformedKeyIsAClearErrorThatNeverEchoesTheKey() throws {
        let notPEM = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"
        #expect(throws: AppStoreConnectKeyError.notPEM) { try AppStoreConnectKey(pem: notPEM, keyId: "K") }
        let body = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZZZZ"
        let broken = "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----"
        #expect(throws: AppStoreConnectKeyError.notP256PrivateKey) { try AppStoreConnectKey(pem: broken, keyId: "K") }
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect(throws: AppStoreConnectKeyError.notP256PrivateKey) { try AppStoreConnectKey(pem: p384, keyId: "K") }
        #expect(throws: AppStoreConnectKeyError.emptyKeyId) { try AppStoreConnectKey(pem: privateKey.pemRepresentation, keyId: "") }
        for error in [AppStoreConnectKeyError.notPEM, .notP256PrivateKey] {
            #expect(!error.description.contains(body.prefix(12)))
            #expect(!String(reflecting: error).contains(body.prefix(12)))
        }
    }

    @Test func neitherTheKeyNorATokenIsEverPrinted() throws {
        let pem = privateKey.pemRepresentation
        let key = try AppStoreConnectKey(pem: pem, keyId: "2X9R4HXF34")
        let secret = pem.split(separator: "\n")[1]
        for text in [String(describing: key), String(reflecting: key), "\(try provider().configuration)"] {
            #expect(text.contains("2X9R4HXF34"))
            #expect(!text.contains(secret))
        }
        let token = try provider().token()
        for text in [String(describing: token), String(reflecting: token)] {
            #expect(!text.contains(token.jwt.split(separator: ".")[2]))
            #expect(text.contains("redacted"))
        }
    }
}
