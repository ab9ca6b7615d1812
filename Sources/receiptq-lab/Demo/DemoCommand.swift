import ArgumentParser
import CommandSupport
import FakeAppStore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPClient
import Postgres
import ReceiptQueue
import Synchronization
import WebhookReceiver

/// `receiptq-lab demo`: what `./Deploy/dev run` shows. Posts a realistic mix of purchases through the
/// HTTP API (as a backend would), then watches the queue drain with a live line per second and
/// ends with a summary by verdict. The mix: orders registered first (some purchases arrive
/// without their order id, as Apple sometimes drops applicationUsername), transactions sent again
/// in a newer receipt, restores on a new device (a new transaction id for a purchase already
/// granted), stale receipts that do not hold their transaction yet (the demo's "app" waits for the
/// `resubmit` verdict, refreshes the receipt and submits again), sandbox receipts (App Review),
/// forged receipts, undecodable receipts and malformed requests.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Post a mixed demo load through the API and watch it drain.", shouldDisplay: true)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The API's base URL.") var apiURL = "http://127.0.0.1:8080"
    @Option(help: "Bearer token for the API. Default: $RECEIPTQ_DEMO_TOKEN.") var token: String?
    @Option(help: "Purchases to submit.") var receipts = 2000
    @Option(help: "Bundle id the workers accept.") var bundleID = "com.example.app"
    @Option(help: "Fake App Store stats URL, for Apple requests per receipt.") var fakeStatsURL: String?
    @Option(help: "Fake App Store admin URL (…/fake/admin): StoreKit 2 purchases are made there and posted to /v1/transactions.")
    var fakeAdminURL: String?
    @Option(help: "StoreKit 2 purchases to post (with --fake-admin-url). Default: a quarter of --receipts.") var signedTransactions: Int?
    @Flag(help: "Some StoreKit purchases go as bare transaction ids (the workers need App Store Server API credentials).")
    var transactionLookups = false
    @Option(help: "Spread the submissions over this long (0s: as fast as the API takes them).") var duration: Duration = .zero
    @Option(help: "Give up waiting after this long.") var timeout: Duration = .seconds(600)

    func validate() throws {
        guard (10...1_000_000).contains(receipts) else { throw ValidationError("--receipts must be 10…1000000") }
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.demo", defaultLevel: .error)
        guard let token = token ?? ProcessInfo.processInfo.environment["RECEIPTQ_DEMO_TOKEN"] else {
            throw ConfigurationError("--token / RECEIPTQ_DEMO_TOKEN is required (a bearer token the API accepts)")
        }
        let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-demo"), size: 1)
        defer { pool.shutdown() }
        let http = HTTPClient()
        // The backend's side: a webhook endpoint the workers push every verdict to, signed.
        let secret = "whsec_demo_\(UUID().uuidString)"
        let receiver = try await WebhookReceiver.start(secrets: [secret])
        try await pool.withConnection {
            try UpsertWebhookEndpoint.run(WebhookEndpoint(id: "demo-backend", url: receiver.url, secrets: [secret]), on: $0)
        }
        let load = DemoLoad(receipts: receipts, bundleID: bundleID)
        print("Posting \(load.orders.count) orders and \(load.submissions.count) receipts to \(apiURL) …")
        let (answers, stale) = try await post(load, token: token, http: http)
        print("API answers: " + answers.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        if let fakeAdminURL {
            let storeKit = DemoStoreKit(apiURL: apiURL, adminURL: fakeAdminURL, token: token, http: http,
                                        count: signedTransactions ?? receipts / 4, lookUps: transactionLookups)
            print("Posting \(storeKit.count) StoreKit 2 purchases to /v1/transactions (with and without appAccountToken, forged, "
                  + "refunded, family-shared\(transactionLookups ? ", transaction ids" : "")) …")
            let storeKitAnswers = try await storeKit.run()
            print("API answers: " + storeKitAnswers.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        }
        // The app's side of a `resubmit` verdict: wait for it, refresh the receipt, submit again.
        let apiURL = self.apiURL
        let done = Mutex(false)
        let resubmissions = Task {
            defer { done.withLock { $0 = true } }
            return try await Self.resubmitWhenAsked(stale, apiURL: apiURL, token: token, http: http)
        }
        try await DemoView(pool: pool, fakeStatsURL: fakeStatsURL).watch(timeout: timeout) { done.withLock { $0 } }
        print("Resubmitted \(try await resubmissions.value) stale receipts after their resubmit verdict.")
        let events: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.events")[0].decode("n")
        let deadline = ContinuousClock.now + .seconds(30)
        while Set(receiver.acknowledged.map(\.id)).count < events && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let types = Dictionary(grouping: receiver.acknowledged, by: \.type).mapValues(\.count).sorted { $0.key < $1.key }
        print("Webhooks: \(Set(receiver.acknowledged.map(\.id)).count) of \(events) events pushed to the backend, signatures checked "
              + "(\(receiver.refusedSignatures) refused): " + types.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        await receiver.stop()
        await http.shutdown()
    }

    /// Long-polls each stale submission until its verdict is `resubmit`, then posts the refreshed
    /// receipt, as the app does; returns how many it resubmitted.
    static func resubmitWhenAsked(_ stale: [(id: Int, fresh: [UInt8])], apiURL: String, token: String, http: HTTPClient) async throws -> Int {
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for (id, fresh) in stale {
                group.addTask {
                    var request = URLRequest(url: URL(string: apiURL + "/v1/receipts/\(id)?wait=30")!)
                    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                    request.timeoutInterval = 40
                    for _ in 0..<20 {
                        let (body, _) = try await URLSession.shared.data(for: request)   // a long-poll, as a backend would
                        let status = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
                        switch status?["verdict"] as? String {
                        case "resubmit":
                            _ = try await http.post(url: apiURL + "/v1/receipts", headers: headers, body: fresh)
                            return 1
                        case "pending", nil: continue
                        default: return 0
                        }
                    }
                    return 0
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Orders first, then receipts, 64 requests in flight; returns counts by HTTP status, and the
    /// stale submissions (job id, refreshed body) the app will resubmit.
    func post(_ load: DemoLoad, token: String, http: HTTPClient) async throws -> ([Int: Int], [(id: Int, fresh: [UInt8])]) {
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        var counts: [Int: Int] = [:]
        var stale: [(id: Int, fresh: [UInt8])] = []
        for (path, bodies) in [("/v1/orders", load.orders), ("/v1/receipts", load.submissions)] {
            let statuses = try await withThrowingTaskGroup(of: (Int, Int, Int?).self) { group in
                var iterator = bodies.enumerated().makeIterator()
                var statuses: [(Int, Int, Int?)] = []
                // Receipts are paced over --duration (orders go at once: they come before purchases).
                let pace = path == "/v1/receipts" && duration > .zero ? duration / bodies.count : .zero
                let start = ContinuousClock.now
                func submit(_ index: Int, _ body: [UInt8]) {
                    group.addTask {
                        try await Task.sleep(until: start + pace * index, clock: .continuous)
                        let answer = try await http.post(url: apiURL + path, headers: headers, body: body)
                        let id = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["id"] as? Int
                        return (index, answer.status, id)
                    }
                }
                for _ in 0..<64 {
                    guard let (index, body) = iterator.next() else { break }
                    submit(index, body)
                }
                while let status = try await group.next() {
                    statuses.append(status)
                    if let (index, body) = iterator.next() { submit(index, body) }
                }
                return statuses
            }
            if path == "/v1/receipts" {
                for (index, status, id) in statuses {
                    counts[status, default: 0] += 1
                    if let fresh = load.refreshed[index], let id { stale.append((id, fresh)) }
                }
            }
        }
        return (counts, stale)
    }
}

/// The demo's purchases as JSON bodies.
struct DemoLoad {
    var orders: [[UInt8]] = []
    var submissions: [[UInt8]] = []
    /// For stale submissions (by index in `submissions`): the body with a refreshed receipt.
    var refreshed: [Int: [UInt8]] = [:]

    init(receipts: Int, bundleID: String) {
        func json(_ object: [String: String]) -> [UInt8] {
            Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
        }
        let products = ["com.example.coins100", "com.example.gems50", "com.example.premium"]
        for n in 0..<receipts {
            let user = "player\(n % 300)", product = products[n % products.count], transaction = "\(1_000_000_000 + n)"
            var environment = FakeReceipt.Environment.production
            var forced: Int?
            var orderID: String? = "order-\(n)"
            switch n % 20 {
            case 0: environment = .sandbox                      // App Review buys in the sandbox
            case 1: forced = 21003                               // forged: Apple says not authentic
            case 2: orderID = nil                                // applicationUsername dropped by Apple
            case 3: submissions.append(json(["receipt_data": "not*base64!", "transaction_id": transaction, "user_id": user]))  // 400
                    continue
            case 4: submissions.append(json(["receipt_data": "bm90IGEgcmVjZWlwdA==", "transaction_id": transaction, "user_id": user]))  // 21002
                    continue
            case 7:   // the device's receipt predates the purchase: resubmit, then the refreshed one
                let old = FakeReceipt(bundleID: bundleID, inApp: [FakeTransaction(transactionID: "\(transaction)-earlier", productID: product)])
                let fresh = FakeReceipt(bundleID: bundleID, inApp: [FakeTransaction(transactionID: "\(transaction)-earlier", productID: product),
                                                                    FakeTransaction(transactionID: transaction, productID: product)])
                orders.append(json(["order_id": "order-\(n)", "user_id": user, "product_id": product]))
                var body = ["receipt_data": old.padded(toBase64Length: 6144).base64(), "transaction_id": transaction, "user_id": user,
                            "product_id": product, "order_id": "order-\(n)"]
                submissions.append(json(body))
                body["receipt_data"] = fresh.padded(toBase64Length: 6144).base64()
                refreshed[submissions.count - 1] = json(body)
                continue
            default: break
            }
            orders.append(json(["order_id": "order-\(n)", "user_id": user, "product_id": product]))
            let receipt = FakeReceipt(bundleID: bundleID, environment: environment,
                                      inApp: [FakeTransaction(transactionID: transaction, productID: product)], forcedStatus: forced)
                .padded(toBase64Length: 6144).base64()
            var body = ["receipt_data": receipt, "transaction_id": transaction, "user_id": user, "product_id": product]
            if let orderID { body["order_id"] = orderID }
            submissions.append(json(body))
            if n % 20 == 5 {   // the app re-sent the purchase inside a newer receipt
                let newer = FakeReceipt(bundleID: bundleID, inApp: [FakeTransaction(transactionID: transaction, productID: product),
                                                                    FakeTransaction(transactionID: "\(transaction)-later", productID: product)])
                body["receipt_data"] = newer.padded(toBase64Length: 6144).base64()
                submissions.append(json(body))
            }
            if n % 20 == 6 {   // restored on a new phone: a new transaction id for the same purchase
                let restored = FakeReceipt(bundleID: bundleID, inApp: [FakeTransaction(
                    transactionID: "\(transaction)-restored", originalTransactionID: transaction, productID: product)])
                submissions.append(json(["receipt_data": restored.padded(toBase64Length: 6144).base64(),
                                          "transaction_id": "\(transaction)-restored", "user_id": user]))
            }
        }
    }
}
