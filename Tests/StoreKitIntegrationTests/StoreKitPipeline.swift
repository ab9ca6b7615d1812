import API
import APITesting
import AppStore
import AppStoreServerAPI
import AppleSignedData
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import ServiceLifecycle
import Worker
import X509

/// The whole StoreKit 2 path with real parts: the fake App Store (verifyReceipt, the App Store
/// Server API, its own test CA), a migrated scratch database, the API in this process with the
/// fake's root trusted, and workers — the transaction runner, the notification runner and, when
/// asked, a verifyReceipt worker — all spoken to over real HTTP through libcurl. Each logs in as
/// its process's role (migration 0011), so a missing grant fails here as it would in production.
final class StoreKitPipeline: Sendable {
    static let bundleId = "com.example.app"
    static let token = "sk2-token-\(UUID().uuidString)"
    /// A second backend token, trusted for transaction-id claims (`--trusted-claim-tokens`).
    static let trustedToken = "sk2-trusted-\(UUID().uuidString)"

    let fake: FakeAppStoreServer
    /// App Store Connect tokens signed with a key the fake accepts.
    let tokens: AppStoreConnectTokenProvider
    let database: ScratchDatabase
    let pool: PostgresPool
    let api: InProcessAPI
    let http: HTTPClient
    let roots: [Certificate]
    /// How `receiptq worker` logs in.
    let asWorker: PostgresConfiguration
    /// The App Store Connect key the fake accepts (id KEY1, issuer issuer-1), as a `.p8` holds it.
    let keyPEM: String

    private init(fake: FakeAppStoreServer, tokens: AppStoreConnectTokenProvider, database: ScratchDatabase, pool: PostgresPool,
                 api: InProcessAPI, http: HTTPClient, roots: [Certificate], asWorker: PostgresConfiguration, keyPEM: String) {
        self.fake = fake
        self.tokens = tokens
        self.database = database
        self.pool = pool
        self.api = api
        self.http = http
        self.roots = roots
        self.asWorker = asWorker
        self.keyPEM = keyPEM
    }

    /// `receiptCheck`: the API verifies receipts locally against the fake's root before storing
    /// them (`receiptq api --receipt-check local`, the command's default).
    static func start(outages: [FakeOutage] = [], serverAPI change: (inout FakeServerAPIConfiguration) -> Void = { _ in },
                      api configure: (inout APIConfiguration) -> Void = { _ in },
                      notificationsToAPI: Bool = false, receiptCheck: Bool = false) async throws -> StoreKitPipeline {
        let key = P256.Signing.PrivateKey()
        // Apple POSTs notifications to the URL registered in App Store Connect: here, the API
        // about to start on this port.
        let apiPort = notificationsToAPI ? try FreePort.pick() : 0
        var serverAPI = FakeServerAPIConfiguration(bundleId: bundleId, acceptedKeys: [FakeAPIKey(keyId: "KEY1", publicKey: key.publicKey)])
        serverAPI.latency = FakeDurationRange(lower: .zero, upper: .zero)
        if notificationsToAPI {
            serverAPI.notificationURL = "http://127.0.0.1:\(apiPort)/v1/apple/notifications"
            serverAPI.notificationRetryCompression = 3600 * 12   // Apple's hours become tenths of a second
        }
        change(&serverAPI)
        let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(
            latency: FakeDurationRange(lower: .milliseconds(5), upper: .milliseconds(20)), outages: outages, serverAPI: serverAPI))
        let roots = [try Certificate(pemEncoded: fake.serverAPI.rootCertificatePEM)]
        let database = try await ScratchDatabase.migrated()
        // The operator trusts the second token in the database too (`receiptq trusted-claims add`).
        let owner = database.pool(size: 1)
        try await owner.withConnection { try TrustedClaimTokens.add(digest: TokenDigests.hexDigest(of: trustedToken), note: nil, on: $0) }
        owner.shutdown()
        var settings = APIConfiguration(port: 0, tokens: try TokenDigests(hexList: [token, trustedToken].map(TokenDigests.hexDigest).joined(separator: ",")),
                                        trustedClaimTokens: [1], poolSize: 4)
        settings.signedTransactions = try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [bundleId])
        // The fake's CA stands in for Apple's root, as the command's quarantine trusts Apple's.
        settings.notificationQuarantine = try NotificationQuarantine(configuredRoots: roots, appleRoots: roots)
        if receiptCheck {
            settings.receiptCheck = try AppReceiptVerifier(configuration: .init(trustedRoots: roots, bundleIds: [bundleId],
                                                                                environments: [.production, .sandbox]))
        }
        configure(&settings)
        var logger = Logger(label: "sk2-api")
        logger.logLevel = .error
        let api = try await InProcessAPI.start(configuration: settings, database: try await database.configuration(as: .api),
                                               migrations: try Migration.load(from: ScratchDatabase.migrationsDirectory()), logger: logger,
                                               port: apiPort)
        let tokens = try AppStoreConnectTokenProvider(configuration: .init(
            key: AppStoreConnectKey(privateKey: key, keyId: "KEY1"), issuerId: "issuer-1", bundleId: bundleId))
        return StoreKitPipeline(fake: fake, tokens: tokens, database: database, pool: database.pool(size: 3), api: api,
                                http: HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(30))), roots: roots,
                                asWorker: try await database.configuration(as: .worker), keyPEM: key.pemRepresentation)
    }

    func stop() async {
        await api.stop()
        await http.shutdown()
        await fake.stop()
        pool.shutdown()
    }

    // MARK: - Apple's side

    /// A purchase in the fake App Store (no notification).
    func buy(_ productId: String, type: FakeProductType = .consumable, customer: String = "customer-1", environment: String = "Production",
             appAccountToken: UUID? = nil, expiresInSeconds: Int64? = nil) throws -> FakePurchase {
        try fake.serverAPI.buy(FakePurchaseRequest(
            productId: productId, type: type.rawValue, environment: environment, customer: customer,
            appAccountToken: appAccountToken?.uuidString.lowercased(), expiresInSeconds: expiresInSeconds, notify: false))
    }

    /// What StoreKit 2 hands the app: `transaction.jwsRepresentation`, signed by the fake's CA.
    func signed(_ purchase: FakePurchase, at date: Date = Date()) -> String {
        fake.serverAPI.signer.signTransaction(purchase, signedAt: date)
    }

    // MARK: - The API, over HTTP

    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var contentType: String?
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    }

    /// `trusted`: with the token trusted for transaction-id claims.
    func post(_ path: String, _ object: [String: Any], trusted: Bool = false) async throws -> Answer {
        let response = try await http.post(
            url: api.baseURL + path,
            headers: ["Authorization": "Bearer \(trusted ? Self.trustedToken : Self.token)", "Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: object)))
        return Answer(status: response.status, body: response.body, contentType: response[header: "Content-Type"])
    }

    func get(_ path: String) async throws -> Answer {
        let response = try await http.send(.get, url: api.baseURL + path, headers: ["Authorization": "Bearer \(Self.token)"])
        return Answer(status: response.status, body: response.body, contentType: response[header: "Content-Type"])
    }

    /// POST /v1/transactions with a signed transaction; the answer's job id when accepted.
    func submit(signed jws: String, user: String, extra: [String: Any] = [:]) async throws -> Answer {
        try await post("/v1/transactions", ["signed_transaction": jws, "user_id": user].merging(extra) { $1 })
    }

    /// The job's status once final (long-poll), or the last answer after `timeout`.
    func final(_ id: Int, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            last = try await get("/v1/receipts/\(id)?wait=5").json
            if last["final"] as? Bool == true { return last }
        }
        return last
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode("count", as: Int.self)
    }

    // MARK: - Workers

    /// App Store Server API clients for the fake, gated by the fleet's rate budget in this database.
    func serverAPIClients(http: HTTPClient, budgetPool: PostgresPool) throws -> ServerAPIClients {
        let gate = FleetRateLimiter(store: PostgresRateBudgetStore(pool: budgetPool), clock: ContinuousClock())
        let configuration = ServerAPIConfiguration(productionURL: fake.serverAPIProductionURL, sandboxURL: fake.serverAPISandboxURL,
                                                   requestTimeout: .seconds(5))
        return ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: configuration, gate: gate),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: configuration, gate: gate))
    }

    /// `receiptq worker`'s transaction runner in this process: signed transactions locally, and
    /// (with `serverAPI`) transaction ids — and receipts, with `receiptsThroughServerAPI`
    /// (`--receipt-verifier server-api`: verified locally first, verifyReceipt for what this
    /// machine cannot confirm) — through the fake's App Store Server API. Test-sized retry delays.
    func startRunner(name: String = "sk2-runner", serverAPI: Bool = true, receiptsThroughServerAPI: Bool = false,
                     confirmSignedTransactions: Bool = false, acceptSandbox: Bool = true,
                     ownership: OwnershipPolicy = OwnershipPolicy()) throws -> RunningService {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let workerPool = PostgresPool(configuration: asWorker, size: 3, logger: Logger(label: "sk2-pool"))
        let budgetPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        let clients = serverAPI ? try serverAPIClients(http: http, budgetPool: budgetPool) : nil
        var configuration = TransactionJobRunner.Configuration(name: name, receiptsThroughServerAPI: receiptsThroughServerAPI,
                                                               lease: .seconds(30), pollInterval: .milliseconds(200),
                                                               shutdownDeadline: .seconds(5))
        let retry = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        configuration.decision = TransactionDecision(acceptSandbox: acceptSandbox, retryPolicy: retry,
                                                     receipts: AttemptDecision(rules: .init(bundleIDs: [Self.bundleId]), retryPolicy: retry))
        configuration.writer.ownership = ownership
        configuration.breaker.openDuration = .milliseconds(300)
        configuration.breaker.maxOpenDuration = .seconds(1)
        var logger = Logger(label: "sk2-runner")
        logger.logLevel = .critical
        let runner = TransactionJobRunner(
            configuration: configuration, pool: workerPool, database: asWorker,
            checker: TransactionChecker(verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [Self.bundleId]),
                                        serverAPI: clients, confirmSignedTransactions: confirmSignedTransactions,
                                        localReceipts: receiptsThroughServerAPI ? try receiptVerifier() : nil,
                                        receipts: VerifyReceiptClient(httpClient: http, configuration: VerifyReceiptClientConfiguration(
                                            productionURL: fake.productionURL, sandboxURL: fake.sandboxURL))),
            lifecycle: JobLifecycle(), logger: logger)
        return RunningService(runner, logger: logger, pools: [workerPool, budgetPool], http: http)
    }

    /// App receipts verified on this machine against the fake's root, as `--receipt-check local` does.
    func receiptVerifier() throws -> AppReceiptVerifier {
        try AppReceiptVerifier(configuration: .init(trustedRoots: roots, bundleIds: [Self.bundleId], environments: [.production, .sandbox]))
    }

    /// A verifyReceipt worker against the fake, for receipts; with `localReceipts`, each receipt is
    /// verified on this machine first (`--receipt-check local`, the command's default).
    func startReceiptWorker(name: String = "sk2-receipts", localReceipts: Bool = false) throws -> RunningService {
        var configuration = WorkerConfiguration(
            name: name, bundleIDs: [Self.bundleId], retry: RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1)),
            apple: VerifyReceiptClientConfiguration(productionURL: fake.productionURL, sandboxURL: fake.sandboxURL))
        configuration.pollInterval = .milliseconds(200)
        configuration.shutdownDeadline = .seconds(5)
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let workerPool = PostgresPool(configuration: asWorker, size: 3, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-receipts")
        logger.logLevel = .critical
        let local = localReceipts ? try receiptVerifier() : nil
        let worker = ReceiptWorker(configuration: configuration, pool: workerPool, database: asWorker,
                                   verifier: VerifyReceiptClient(httpClient: http, configuration: configuration.apple),
                                   localReceipts: local, logger: logger)
        return RunningService(worker, logger: logger, pools: [workerPool], http: http)
    }

    /// `receiptq worker`'s notification runner: applies what the API committed, in Apple's order.
    func startNotificationRunner(name: String = "sk2-notifications", bundleIds: Set<String> = [StoreKitPipeline.bundleId]) throws -> RunningService {
        let workerPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-notifications")
        logger.logLevel = .critical
        let runner = NotificationRunner(
            configuration: NotificationRunner.Configuration(name: name, lease: .seconds(30), pollInterval: .milliseconds(200),
                                                            retry: NotificationRetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(1))),
            pool: workerPool, database: asWorker,
            verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: bundleIds), logger: logger)
        return RunningService(runner, logger: logger, pools: [workerPool], http: HTTPClient())
    }

    /// `receiptq worker`'s consumption responder: answers CONSUMPTION_REQUESTs through the fake's
    /// App Store Server API when the user consented.
    func startConsumptionResponder(name: String = "sk2-consumption", refundPreference: RefundPreferencePolicy = .decline) throws -> RunningService {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let workerPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        let budgetPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-consumption")
        logger.logLevel = .critical
        let responder = ConsumptionResponder(
            configuration: ConsumptionResponder.Configuration(name: name, pollInterval: .milliseconds(200), refundPreference: refundPreference),
            pool: workerPool, clients: try serverAPIClients(http: http, budgetPool: budgetPool), logger: logger)
        return RunningService(responder, logger: logger, pools: [workerPool, budgetPool], http: http)
    }

    /// `receiptq worker`'s history sync runner: walks Transaction History v2 on the fake under the
    /// fleet's rate budget. `maxPagesPerClaim` small makes a walk yield and resume from its revision.
    func startHistorySyncRunner(name: String = "sk2-history", concurrency: Int = 4, maxPagesPerClaim: Int = 50) throws -> RunningService {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let workerPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        let budgetPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-history")
        logger.logLevel = .critical
        let runner = HistorySyncRunner(
            configuration: HistorySyncRunner.Configuration(name: name, concurrency: concurrency, pollInterval: .milliseconds(200),
                                                           maxPagesPerClaim: maxPagesPerClaim),
            pool: workerPool, clients: try serverAPIClients(http: http, budgetPool: budgetPool),
            verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [Self.bundleId]), logger: logger)
        return RunningService(runner, logger: logger, pools: [workerPool, budgetPool], http: http)
    }

    /// `receiptq worker`'s status reconciler: Get All Subscription Statuses on the fake for due subscriptions.
    func startStatusReconciler(name: String = "sk2-reconciler", concurrency: Int = 8) throws -> RunningService {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let workerPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        let budgetPool = PostgresPool(configuration: asWorker, size: 2, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-reconciler")
        logger.logLevel = .critical
        let reconciler = StatusReconciler(
            configuration: StatusReconciler.Configuration(name: name, concurrency: concurrency, pollInterval: .milliseconds(200)),
            pool: workerPool, clients: try serverAPIClients(http: http, budgetPool: budgetPool),
            verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [Self.bundleId]), logger: logger)
        return RunningService(reconciler, logger: logger, pools: [workerPool, budgetPool], http: http)
    }

    /// `receiptq scheduler`'s history recovery, logged in as the scheduler; call `recover` on it.
    /// Stop it with `finish` (it owns a pool and an HTTP client).
    func notificationRecovery() async throws -> (recovery: NotificationHistoryRecovery, finish: @Sendable () async -> Void) {
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(5)))
        let pool = PostgresPool(configuration: try await database.configuration(as: .scheduler), size: 2, logger: Logger(label: "sk2-pool"))
        var logger = Logger(label: "sk2-recovery")
        logger.logLevel = .critical
        let recovery = NotificationHistoryRecovery(
            configuration: NotificationHistoryRecovery.Configuration(environments: [.production]), pool: pool,
            clients: try serverAPIClients(http: http, budgetPool: pool),
            verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [Self.bundleId]), logger: logger)
        return (recovery, { pool.shutdown(); await http.shutdown() })
    }

    func put(_ path: String, _ object: [String: Any]) async throws -> Answer {
        let response = try await http.send(.put, url: api.baseURL + path,
                                           headers: ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/json"],
                                           body: Array(try JSONSerialization.data(withJSONObject: object)))
        return Answer(status: response.status, body: response.body, contentType: response[header: "Content-Type"])
    }

    /// POST /v1/apple/notifications as Apple does: no bearer token.
    func postNotification(_ signedPayload: String) async throws -> Answer {
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        let response = try await http.post(url: api.baseURL + "/v1/apple/notifications",
                                           headers: ["Content-Type": "application/json"], body: Array(body))
        return Answer(status: response.status, body: response.body, contentType: response[header: "Content-Type"])
    }
}

/// A service running in a group of its own until stopped (gracefully, as on SIGTERM).
struct RunningService {
    let group: ServiceGroup
    let task: Task<Void, Error>
    let pools: [PostgresPool]
    let http: HTTPClient

    init(_ service: some Service, logger: Logger, pools: [PostgresPool], http: HTTPClient) {
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        self.group = group
        self.task = Task { try await group.run() }
        self.pools = pools
        self.http = http
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        for pool in pools { pool.shutdown() }
        await http.shutdown()
    }
}

/// Runs `body` with a pipeline and stops it afterwards, whatever happens.
func withPipeline<T>(outages: [FakeOutage] = [], serverAPI change: (inout FakeServerAPIConfiguration) -> Void = { _ in },
                     api configure: (inout APIConfiguration) -> Void = { _ in }, notificationsToAPI: Bool = false,
                     receiptCheck: Bool = false, _ body: (StoreKitPipeline) async throws -> T) async throws -> T {
    let pipeline = try await StoreKitPipeline.start(outages: outages, serverAPI: change, api: configure, notificationsToAPI: notificationsToAPI,
                                                    receiptCheck: receiptCheck)
    do {
        let value = try await body(pipeline)
        await pipeline.stop()
        return value
    } catch {
        await pipeline.stop()
        throw error
    }
}

extension StoreKitPipeline.Answer {
    var id: Int? { json["id"] as? Int }
}
