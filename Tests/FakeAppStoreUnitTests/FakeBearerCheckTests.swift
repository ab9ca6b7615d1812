import AppleSignedData
import Crypto
import FakeAppStore
import Foundation
import Testing

/// The fake refuses what Apple refuses: each row breaks one rule of an App Store Server API token.
@Suite("Fake bearer check: Apple's token rules, one refusal each")
struct FakeBearerCheckTests {
    let key = P256.Signing.PrivateKey()
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    struct Claims: Encodable {
        var iss: String? = "issuer-1"
        /// Apple's own libraries leave `iat` out; `nil` encodes no `iat` claim at all.
        var iat: Int64? = 1_700_000_000 - 60
        var exp: Int64? = 1_700_000_000 + 1_140
        var aud = "appstoreconnect-v1"
        var bid = "com.example.app"
    }

    private func token(_ claims: Claims = Claims(), key: P256.Signing.PrivateKey? = nil, kid: String = "KEY1", alg: String = "ES256") throws -> String {
        guard alg == "ES256" else {
            // ES256JWSSigner always writes ES256; a token claiming another algorithm is built by hand.
            let header = Self.base64URL(Data(#"{"alg":"\#(alg)","kid":"\#(kid)","typ":"JWT"}"#.utf8))
            let payload = Self.base64URL(try JSONEncoder().encode(claims))
            let signature = try (key ?? self.key).signature(for: Data((header + "." + payload).utf8))
            return header + "." + payload + "." + Self.base64URL(signature.rawRepresentation)
        }
        return try ES256JWSSigner(privateKey: key ?? self.key, header: JWSHeader(kid: kid, typ: "JWT")).sign(claims)
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private func check(_ authorization: String?, keyId: String? = "KEY1", issuer: String? = nil) -> FakeBearerCheck.Verdict {
        FakeBearerCheck.check(authorization: authorization, keys: [FakeAPIKey(keyId: keyId, publicKey: key.publicKey)],
                              bundleId: "com.example.app", issuerId: issuer, now: now)
    }

    @Test func aTokenAsTheProductSignsItIsAccepted() throws {
        let provider = try AppStoreConnectTokenProvider(
            configuration: .init(key: AppStoreConnectKey(privateKey: key, keyId: "KEY1"), issuerId: "issuer-1", bundleId: "com.example.app"),
            now: { Date(timeIntervalSince1970: 1_700_000_000) })
        #expect(check(try provider.token().bearerHeaderValue, issuer: "issuer-1") == .accepted)
    }

    @Test func noTokenIsRefused() {
        #expect(check(nil) == .refused("no bearer token"))
        #expect(check("Basic abc") == .refused("no bearer token"))
    }

    @Test func garbageIsRefused() {
        #expect(check("Bearer not-a-jwt") == .refused("malformed token"))
        #expect(check("Bearer a.b.c") == .refused("malformed token"))
    }

    @Test func aTokenSignedByAnotherKeyIsRefused() throws {
        #expect(check("Bearer " + (try token(key: P256.Signing.PrivateKey()))) == .refused("bad signature"))
    }

    @Test func aTokenNamingAnotherKeyIdIsRefused() throws {
        #expect(check("Bearer " + (try token(kid: "OTHER"))) == .refused("unknown key id"))
    }

    @Test func aKeyConfiguredWithoutAnIdAcceptsAnyKid() throws {
        #expect(check("Bearer " + (try token(kid: "OTHER")), keyId: nil) == .accepted)
    }

    @Test func anAlgorithmOtherThanES256IsRefused() throws {
        #expect(check("Bearer " + (try token(alg: "HS256"))) == .refused("alg is not ES256"))
    }

    @Test func aWrongAudienceIsRefused() throws {
        var claims = Claims()
        claims.aud = "appstoreconnect-v2"
        #expect(check("Bearer " + (try token(claims))) == .refused("aud is not appstoreconnect-v1"))
    }

    @Test func anotherAppsBundleIdIsRefused() throws {
        var claims = Claims()
        claims.bid = "com.example.other"
        #expect(check("Bearer " + (try token(claims))) == .refused("bid is not com.example.app"))
    }

    @Test func anExpiredTokenIsRefused() throws {
        var claims = Claims()
        claims.iat = 1_700_000_000 - 1_200
        claims.exp = 1_700_000_000 - 1
        #expect(check("Bearer " + (try token(claims))) == .refused("expired"))
    }

    @Test func aTokenLivingOverAnHourIsRefused() throws {
        var claims = Claims()
        claims.exp = claims.iat! + 3_601
        #expect(check("Bearer " + (try token(claims))) == .refused("lifetime over an hour"))
    }

    @Test func aTokenIssuedInTheFutureBeyondTheSkewIsRefused() throws {
        var claims = Claims()
        claims.iat = 1_700_000_000 + 120
        claims.exp = claims.iat! + 600
        #expect(check("Bearer " + (try token(claims))) == .refused("issued in the future"))
    }

    /// Apple's App Store Server Library (Python, 3.1) signs `iss`, `aud`, `exp` (now + 5 min) and
    /// `bid`, and no `iat`; Apple accepts it, so the fake must.
    @Test func aTokenWithoutIatAsApplesLibrariesSignItIsAccepted() throws {
        var claims = Claims()
        claims.iat = nil
        claims.exp = 1_700_000_000 + 300
        #expect(check("Bearer " + (try token(claims)), issuer: "issuer-1") == .accepted)
    }

    @Test func withoutIatTheExpiryMayNotLieMoreThanAnHourAhead() throws {
        var claims = Claims()
        claims.iat = nil
        claims.exp = 1_700_000_000 + 3_600 + 61
        #expect(check("Bearer " + (try token(claims))) == .refused("expires more than an hour ahead"))
        claims.exp = 1_700_000_000 - 1
        #expect(check("Bearer " + (try token(claims))) == .refused("expired"))
    }

    @Test func noExpiryOrNoIssuerIsRefused() throws {
        var claims = Claims()
        claims.exp = nil
        #expect(check("Bearer " + (try token(claims))) == .refused("exp missing"))
        claims = Claims()
        claims.iss = nil
        #expect(check("Bearer " + (try token(claims))) == .refused("iss missing"))
    }

    @Test func anotherIssuerIsRefusedWhenOneIsConfigured() throws {
        #expect(check("Bearer " + (try token()), issuer: "issuer-2") == .refused("iss is not the configured issuer"))
        #expect(check("Bearer " + (try token()), issuer: nil) == .accepted)
    }

    @Test func noConfiguredKeyRefusesEverything() throws {
        let verdict = FakeBearerCheck.check(authorization: "Bearer " + (try token()), keys: [], bundleId: "com.example.app",
                                            issuerId: nil, now: now)
        #expect(verdict == .refused("unknown key id"))
    }
}
