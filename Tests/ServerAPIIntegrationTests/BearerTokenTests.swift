import AppStoreServerAPI
import AppleSignedData
import Crypto
import Foundation
import Testing

/// Over real HTTP: the fake answers 401 to every token Apple would refuse, and the client reports
/// 401 as our configuration.
@Suite("Server API bearer tokens: the fake refuses what Apple refuses")
struct BearerTokenTests {
    @Test func theProductsTokenIsAccepted() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            let info = try await fixture.client().getTransactionInfo(transactionId: purchase.transactionId)
            #expect(info.signedTransactionInfo != nil)
        }
    }

    @Test func aTokenFromAnotherKeyIsUnauthorized() async throws {
        try await withServerAPIFixture { fixture in
            let client = try fixture.client(tokens: try fixture.tokens(key: P256.Signing.PrivateKey()))
            let error = await serverAPIError { _ = try await client.getTransactionInfo(transactionId: "1") }
            #expect(error?.kind == .unauthorized)
            #expect(error?.isConfigurationProblem == true)
        }
    }

    @Test func aTokenForAnotherAppIsUnauthorized() async throws {
        try await withServerAPIFixture { fixture in
            let client = try fixture.client(tokens: try fixture.tokens(bundleId: "com.example.other"))
            #expect(await serverAPIError { _ = try await client.getTransactionInfo(transactionId: "1") }?.kind == .unauthorized)
        }
    }

    @Test func anExpiredTokenIsUnauthorized() async throws {
        try await withServerAPIFixture { fixture in
            let twoHoursAgo = Date().addingTimeInterval(-7_200)
            let client = try fixture.client(tokens: try fixture.tokens(now: { twoHoursAgo }))
            #expect(await serverAPIError { _ = try await client.getTransactionInfo(transactionId: "1") }?.kind == .unauthorized)
        }
    }

    @Test func aTokenForAnotherAudienceIsUnauthorized() async throws {
        struct Claims: Encodable {
            var iss = "issuer-1", aud = "appstoreconnect-v2", bid = ServerAPIFixture.bundleId
            var iat = Int64(Date().timeIntervalSince1970), exp = Int64(Date().timeIntervalSince1970) + 600
        }
        try await withServerAPIFixture { fixture in
            let jwt = try ES256JWSSigner(privateKey: fixture.key, header: JWSHeader(kid: "KEY1", typ: "JWT")).sign(Claims())
            let response = try await fixture.http.send(.get, url: fixture.fake.serverAPIProductionURL + "/inApps/v1/transactions/1",
                                                       headers: ["Authorization": "Bearer " + jwt])
            #expect(response.status == 401)
            #expect(fixture.fake.stats.snapshot().outcomes["api.get_transaction_info.401"] == 1)
        }
    }

    /// Apple's own libraries sign no `iat`: such a token passes the check (and meets the endpoint's
    /// own 404 for an unknown transaction), as it does at Apple.
    @Test func aTokenWithoutIatAsApplesLibrariesSignItIsAccepted() async throws {
        struct Claims: Encodable {
            var iss = "issuer-1", aud = "appstoreconnect-v1", bid = ServerAPIFixture.bundleId
            var exp = Int64(Date().timeIntervalSince1970) + 300
        }
        try await withServerAPIFixture { fixture in
            let jwt = try ES256JWSSigner(privateKey: fixture.key, header: JWSHeader(kid: "KEY1", typ: "JWT")).sign(Claims())
            let response = try await fixture.http.send(.get, url: fixture.fake.serverAPIProductionURL + "/inApps/v1/transactions/1",
                                                       headers: ["Authorization": "Bearer " + jwt])
            #expect(response.status == 404)
            #expect(fixture.fake.stats.snapshot().outcomes["api.get_transaction_info.404"] == 1)
        }
    }

    @Test func noTokenAtAllIsUnauthorized() async throws {
        try await withServerAPIFixture { fixture in
            let response = try await fixture.http.send(.get, url: fixture.fake.serverAPIProductionURL + "/inApps/v1/transactions/1")
            #expect(response.status == 401)
        }
    }
}
