import AppStoreServerAPI
import AppleSignedData
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Support
import Worker
import X509

/// A migrated database (owner pool for set-up and checks; the support and read-only logins the
/// operations run as), the fake App Store on a free port, and `SupportOperations` wired to both
/// as `receiptq support serve` wires them.
struct SupportFixture {
    static let bundleId = "com.example.app"

    let database: ScratchDatabase
    let owner: PostgresPool
    let support: PostgresPool
    let readonly: PostgresPool
    let fake: FakeAppStoreServer
    let http: HTTPClient
    let operations: SupportOperations

    static func start() async throws -> SupportFixture {
        let database = try await ScratchDatabase.migrated()
        let key = P256.Signing.PrivateKey()
        let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .zero, upper: .zero),
            serverAPI: FakeServerAPIConfiguration(bundleId: bundleId, acceptedKeys: [FakeAPIKey(keyId: "KEY1", publicKey: key.publicKey)])))
        let http = HTTPClient()
        let tokens = try AppStoreConnectTokenProvider(configuration: .init(key: AppStoreConnectKey(privateKey: key, keyId: "KEY1"),
                                                                           issuerId: "issuer-1", bundleId: bundleId))
        let api = ServerAPIConfiguration(productionURL: fake.serverAPIProductionURL, sandboxURL: fake.serverAPISandboxURL, requestTimeout: .seconds(10))
        let support = PostgresPool(configuration: try await database.configuration(as: .support), size: 2)
        // As `receiptq support serve` wires them: Apple's calls spend the fleet's rate budget, taken
        // through the support login itself.
        let gate = FleetRateLimiter(store: PostgresRateBudgetStore(pool: support), clock: ContinuousClock())
        let clients = ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: api, gate: gate),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: api, gate: gate))
        let root = try Certificate(pemEncoded: fake.serverAPI.rootCertificatePEM)
        let apple = SupportApple(clients: clients, verifier: { environment in
            try SignedDataVerifier(configuration: .init(trustedRoots: [root], bundleIds: [bundleId], environment: environment.signedDataEnvironment))
        })
        let readonly = PostgresPool(configuration: try await database.configuration(as: .readonly), size: 2)
        return SupportFixture(database: database, owner: database.pool(size: 2), support: support, readonly: readonly, fake: fake, http: http,
                              operations: SupportOperations(readonly: readonly, admin: support, apple: apple))
    }

    func stop() async {
        owner.shutdown()
        support.shutdown()
        readonly.shutdown()
        await http.shutdown()
        await fake.stop()
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await owner.query(sql, parameters)[0].decode("count", as: Int.self)
    }

    /// The audit row `id`, as the owner reads it.
    func audit(_ id: Int64) async throws -> AuditEntry {
        try await owner.withConnection { try ListAudit.run(limit: 1000, on: $0) }.first { $0.id == id }!
    }

    /// A ledger row as a worker would have written it.
    func grant(_ transaction: String, original: String? = nil, user: String, product: String = "com.example.pro",
               ownership: String = "PURCHASED", environment: String = "Production", key: String? = nil) async throws {
        // Every grant names its original transaction's owner (grants_owner_fkey).
        try await owner.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, $3, 'proof') ON CONFLICT DO NOTHING",
                              [original ?? transaction, user, environment])
        try await owner.query("""
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                         ownership_type, product_type)
            VALUES ($1, $2, 1, $3, $4, $5, $6, $7, 'non_consumable')
            """, [transaction, original ?? transaction, user, product, environment, key ?? "purchase:" + (original ?? transaction), ownership])
    }

    static func action(_ why: String = "ticket 42") -> SupportAction {
        try! SupportAction(actor: "alice", why: why)
    }
}

/// Runs `body` with a fixture and stops it afterwards, whatever happens.
func withSupportFixture(_ body: (SupportFixture) async throws -> Void) async throws {
    let fixture = try await SupportFixture.start()
    do {
        try await body(fixture)
        await fixture.stop()
    } catch {
        await fixture.stop()
        throw error
    }
}
