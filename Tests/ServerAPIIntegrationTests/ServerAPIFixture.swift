import AppStoreServerAPI
import AppleSignedData
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import X509

/// The fake App Store on a free loopback port, a key it accepts, and clients of it over real HTTP
/// through libcurl.
struct ServerAPIFixture {
    static let bundleId = "com.example.app"

    let fake: FakeAppStoreServer
    let key: P256.Signing.PrivateKey
    let http: HTTPClient

    static func start(_ change: (inout FakeServerAPIConfiguration) -> Void = { _ in }) async throws -> ServerAPIFixture {
        let key = P256.Signing.PrivateKey()
        var api = FakeServerAPIConfiguration(bundleId: bundleId, acceptedKeys: [FakeAPIKey(keyId: "KEY1", publicKey: key.publicKey)])
        change(&api)
        let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .zero, upper: .zero), serverAPI: api))
        return ServerAPIFixture(fake: fake, key: key, http: HTTPClient())
    }

    func stop() async {
        await http.shutdown()
        await fake.stop()
    }

    /// Tokens signed with `key` (default: the accepted one) for `bundleId`, at `now`.
    func tokens(key: P256.Signing.PrivateKey? = nil, bundleId: String = Self.bundleId,
                now: @escaping @Sendable () -> Date = { Date() }) throws -> AppStoreConnectTokenProvider {
        try AppStoreConnectTokenProvider(
            configuration: .init(key: AppStoreConnectKey(privateKey: key ?? self.key, keyId: "KEY1"), issuerId: "issuer-1", bundleId: bundleId),
            now: now)
    }

    func client(_ environment: ServerAPIEnvironment = .production, tokens: AppStoreConnectTokenProvider? = nil,
                gate: any ServerAPIRequestGate = UngatedRequests()) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClient(
            environment: environment, httpClient: http, tokens: tokens ?? self.tokens(),
            configuration: ServerAPIConfiguration(productionURL: fake.serverAPIProductionURL, sandboxURL: fake.serverAPISandboxURL,
                                                  requestTimeout: .seconds(10)),
            gate: gate)
    }

    func clients() throws -> ServerAPIClients {
        ServerAPIClients(production: try client(.production), sandbox: try client(.sandbox))
    }

    /// A verifier that trusts the fake's root (as the product is configured for the fake).
    func verifier(_ environment: ServerAPIEnvironment = .production) throws -> SignedDataVerifier {
        try SignedDataVerifier(configuration: .init(
            trustedRoots: [try Certificate(pemEncoded: fake.serverAPI.rootCertificatePEM)],
            bundleIds: [Self.bundleId], environment: environment.signedDataEnvironment))
    }

    /// A purchase made through the admin API's Swift side, without a notification.
    func buy(_ productId: String = "com.example.coins", type: String = "consumable", environment: String = "Production",
             customer: String = "customer-1") throws -> FakePurchase {
        try fake.serverAPI.buy(FakePurchaseRequest(productId: productId, type: type, environment: environment, customer: customer, notify: false))
    }
}

/// Runs `body` with a fixture and stops it afterwards, whatever happens.
func withServerAPIFixture<T>(_ change: (inout FakeServerAPIConfiguration) -> Void = { _ in },
                             _ body: (ServerAPIFixture) async throws -> T) async throws -> T {
    let fixture = try await ServerAPIFixture.start(change)
    do {
        let value = try await body(fixture)
        await fixture.stop()
        return value
    } catch {
        await fixture.stop()
        throw error
    }
}

/// The `ServerAPIError` `body` throws, or nil.
func serverAPIError(_ body: () async throws -> Void) async -> ServerAPIError? {
    do {
        try await body()
        return nil
    } catch let error as ServerAPIError {
        return error
    } catch {
        return nil
    }
}
