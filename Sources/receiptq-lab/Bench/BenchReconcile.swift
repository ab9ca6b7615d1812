import AppStoreServerAPI
import AppleSignedData
import ArgumentParser
import CommandSupport
import Crypto
import FakeAppStore
import Foundation
import HTTPClient
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Worker
import X509

/// `receiptq-lab bench reconcile`: what status reconciliation costs Apple and the database,
/// measured with the worker's own `StatusReconciler` (default configuration, the fleet's rate
/// budget in PostgreSQL) against the fake App Store over HTTP. `--customers` customers with one to
/// three subscriptions each (`--multi`: the share with two or three), in the population the
/// schedule's table assumes (90 % active monthly, 3 % in a grace period, 2 % in billing retry, 5 %
/// expired), every subscription due at once. It prints the Apple requests per subscription
/// checked, the checks per second, PostgreSQL's CPU per 1,000 checks, and the schedule the checks
/// wrote — the checks per subscriber per day it implies, by state — so the request rate a
/// population costs and the subscribers one endpoint's budget carries are measured, not assumed.
struct BenchReconcile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Status reconciliation against the fake App Store: Apple requests per subscriber per day, checks per second, database CPU.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Customers (each with one to three subscriptions).") var customers = 2_000
    @Option(help: "The share of customers with two or three subscriptions, 0…1.") var multi = 0.2
    @Option(help: "The budget of Get All Subscription Statuses per second (Apple's published limit: 50).") var rate = 50.0
    @Option(help: "Checks in flight (the worker's --reconcile-concurrency).") var concurrency = 8
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard (1...200_000).contains(customers) else { throw ValidationError("--customers must be 1…200000") }
        guard (0...1).contains(multi) else { throw ValidationError("--multi must be within [0, 1]") }
        guard rate > 0, rate <= 10_000 else { throw ValidationError("--rate must be within (0, 10000]") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1…256") }
    }

    static let bundleId = "com.example.bench"

    /// The population of the schedule's table, by a customer's index.
    static func state(of index: Int) -> FakeSubscriptionChange.Action? {
        switch index % 100 {
        case 0..<90: nil                // active, monthly
        case 90..<93: .billingFailure   // grace period (3 days)
        case 93..<95: .billingFailure   // billing retry (no grace)
        default: .expire
        }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-reconcile", defaultLevel: .error)
        let key = P256.Signing.PrivateKey()
        var serverAPI = FakeServerAPIConfiguration(bundleId: Self.bundleId, acceptedKeys: [FakeAPIKey(keyId: "KEY1", publicKey: key.publicKey)])
        serverAPI.latency = FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(60))
        let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(serverAPI: serverAPI))
        let server = try database.configuration(applicationName: "receiptq-bench")
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "reconcile", migrations: try migrations.load())
        let owner = scratch.pool(size: 2)
        let http = HTTPClient(configuration: HTTPClientConfiguration(defaultTimeout: .seconds(10)))
        do {
            let seeded = try await seed(fake: fake, owner: owner)
            let outcome = try await measure(fake: fake, scratch: scratch, owner: owner, http: http, key: key, seeded: seeded)
            print(json ? outcome.json : outcome.text)
        } catch {
            await http.shutdown()
            owner.shutdown()
            await fake.stop()
            await scratch.drop()
            throw error
        }
        await http.shutdown()
        owner.shutdown()
        await fake.stop()
        await scratch.drop()
    }

    /// Buys every subscription at the fake, moves the population's share into grace, billing
    /// retry and expiry, and puts each in the model as the ledger's first grant does — known, with
    /// an owner, due now (state unknown until Apple's answer).
    private func seed(fake: FakeAppStoreServer, owner: PostgresPool) async throws -> Int {
        var originals: [String] = [], users: [String] = []
        for customer in 0..<customers {
            let count = Double((customer * 7_919) % 1_000) / 1_000 < multi ? 2 + customer % 2 : 1
            for product in 0..<count {
                let purchase = try fake.serverAPI.buy(FakePurchaseRequest(
                    productId: "com.example.bench.sub\(product)", type: FakeProductType.autoRenewable.rawValue, environment: "Production",
                    customer: "customer-\(customer)", expiresInSeconds: 30 * 86_400, notify: false))
                if let action = Self.state(of: customer + product) {
                    try fake.serverAPI.changeSubscription(FakeSubscriptionChange(
                        originalTransactionId: purchase.originalTransactionId, action: action,
                        graceDays: (customer + product) % 100 < 93 ? 3 : nil))
                }
                originals.append(purchase.originalTransactionId)
                users.append("user-\(customer)")
            }
        }
        try await owner.query("""
            INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, signed_at, reconcile_at)
            SELECT o, 'Production', u, to_timestamp(0), now() FROM unnest($1::text[], $2::text[]) AS t(o, u)
            """, [originals, users])
        return originals.count
    }

    private func measure(fake: FakeAppStoreServer, scratch: ScratchDatabase, owner: PostgresPool, http: HTTPClient,
                         key: P256.Signing.PrivateKey, seeded: Int) async throws -> BenchReconcileOutcome {
        let asWorker = try await scratch.configuration(as: .worker)
        let workerPool = PostgresPool(configuration: asWorker, size: 3)
        let budgetPool = PostgresPool(configuration: asWorker, size: 2)
        defer { workerPool.shutdown(); budgetPool.shutdown() }
        let gate = FleetRateLimiter(store: PostgresRateBudgetStore(pool: budgetPool),
                                    configuration: FleetRateLimiterConfiguration(limits: ServerAPIRateLimits(
                                        production: [.getAllSubscriptionStatuses: rate])),
                                    clock: ContinuousClock())
        let tokens = try AppStoreConnectTokenProvider(configuration: .init(
            key: AppStoreConnectKey(privateKey: key, keyId: "KEY1"), issuerId: "issuer-1", bundleId: Self.bundleId))
        let apiConfiguration = ServerAPIConfiguration(productionURL: fake.serverAPIProductionURL, sandboxURL: fake.serverAPISandboxURL,
                                                      requestTimeout: .seconds(10))
        let clients = ServerAPIClients(
            production: try AppStoreServerAPIClient(environment: .production, httpClient: http, tokens: tokens, configuration: apiConfiguration, gate: gate),
            sandbox: try AppStoreServerAPIClient(environment: .sandbox, httpClient: http, tokens: tokens, configuration: apiConfiguration, gate: gate))
        let roots = [try Certificate(pemEncoded: fake.serverAPI.rootCertificatePEM)]
        var logger = Logger(label: "bench-reconcile")
        logger.logLevel = .critical
        let reconciler = StatusReconciler(
            configuration: StatusReconciler.Configuration(name: "bench-reconciler", concurrency: concurrency, pollInterval: .milliseconds(200)),
            pool: workerPool, clients: clients, verifier: try SignedTransactionVerifier(trustedRoots: roots, bundleIds: [Self.bundleId]),
            logger: logger)
        let requests = { fake.stats.snapshot().outcomes.filter { $0.key.hasPrefix("api.get_all_subscription_statuses") }.values.reduce(0, +) }
        let postgresBefore = CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name) ?? 0
        let requestsBefore = requests()
        let started = ContinuousClock.now
        let task = Task { try await reconciler.run() }
        var due = seeded
        while due > 0 && ContinuousClock.now - started < .seconds(Double(seeded) / rate * 3 + 60) {
            try await Task.sleep(for: .milliseconds(250))
            due = try await owner.query("SELECT count(*)::int AS n FROM receiptq.subscriptions WHERE reconcile_at <= now() OR reconciled_at IS NULL")[0]
                .decode("n", as: Int.self)
        }
        let elapsed = ContinuousClock.now - started
        task.cancel()
        _ = try? await task.value
        let postgres = (CommandCPU.seconds(of: "postgres", commandLineContaining: scratch.name) ?? 0) - postgresBefore
        guard due == 0 else { throw BenchError("\(due) of \(seeded) subscriptions were still due after \(elapsed)") }
        // The schedule the checks wrote: each subscription's next check, as checks a day.
        let rows = try await owner.query("""
            SELECT coalesce(state, 'unknown') AS state, count(*)::int AS n,
                   sum(86400 / greatest(extract(epoch FROM reconcile_at - reconciled_at), 1))::float8 AS per_day
            FROM receiptq.subscriptions GROUP BY 1 ORDER BY 1
            """)
        var states: [BenchReconcileOutcome.State] = []
        for row in rows {
            states.append(.init(state: try row.decode("state"), subscriptions: try row.decode("n"), checksPerDay: try row.decode("per_day")))
        }
        // With one answer per customer, a customer costs the rate of its most frequent subscription.
        let customerRate = try await owner.query("""
            SELECT sum(m)::float8 AS per_day FROM (
                SELECT max(86400 / greatest(extract(epoch FROM reconcile_at - reconciled_at), 1)) AS m
                FROM receiptq.subscriptions GROUP BY user_id) AS c
            """)[0].decode("per_day", as: Double.self)
        return BenchReconcileOutcome(customers: customers, subscriptions: seeded, requests: requests() - requestsBefore,
                                     seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                                     postgresSeconds: postgres, rate: rate, states: states, requestsPerDay: customerRate)
    }
}
