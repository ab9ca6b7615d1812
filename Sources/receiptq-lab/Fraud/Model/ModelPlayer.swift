import FakeAppStore
import Foundation
import HTTPClient
import OwnershipModel
import Postgres
import ReceiptQueue

/// Plays one generated history against the running fleet, as the people in it would: the backend
/// registers orders and passes on whatever its users send, Apple (the fake App Store, through its
/// admin API) sells, renews, upgrades, shares and refunds, the runner hands Apple's notifications to
/// the API in the order the history says, support acts through its own database login. After every
/// step it waits until the fleet is quiet (`ModelQuiet`), so what the step set off — jobs, history
/// syncs, notifications applied — has ended before the next. Then it reads every submission's
/// verdict again and every user's entitlements.
///
/// It applies each step to its own `OwnershipReference` as it goes, and plays exactly the steps
/// the model found something to act on: the model and the runner skip the same ones.
final class ModelPlayer: @unchecked Sendable {
    static let products: [Product: (id: String, fakeType: FakeProductType)] = [
        .coins: ("com.example.model.coins", .consumable), .pro: ("com.example.model.pro", .nonConsumable),
        .basic: ("com.example.model.basic", .autoRenewable), .premium: ("com.example.model.premium", .autoRenewable),
    ]
    static let group = "model-group"

    /// The catalog every history buys from: the ledger keys purchases by its types, and the
    /// subscription model ranks premium above basic.
    static let catalog = [
        CatalogProduct(productID: products[.coins]!.id, type: "consumable"),
        CatalogProduct(productID: products[.pro]!.id, type: "non_consumable"),
        CatalogProduct(productID: products[.premium]!.id, type: "auto_renewable", subscriptionGroup: group, groupLevel: 1),
        CatalogProduct(productID: products[.basic]!.id, type: "auto_renewable", subscriptionGroup: group, groupLevel: 2),
    ]

    let history: History
    let name: String
    let fleet: FraudFleet
    let http: HTTPClient
    let quiet: ModelQuiet
    let support: PostgresPool

    private(set) var model: OwnershipReference
    private(set) var observed = Observation()
    private var purchases: [[FakePurchase]] = []
    private var orders: [(id: String, token: UUID)] = []
    private var receipts: [String: String] = [:]
    private var handedOver: Set<String> = []
    private var manual = 0

    init(history: History, name: String, fleet: FraudFleet, http: HTTPClient, quiet: ModelQuiet, support: PostgresPool) {
        self.history = history
        self.name = name
        self.fleet = fleet
        self.http = http
        self.quiet = quiet
        self.support = support
        self.model = OwnershipReference()
    }

    func user(_ n: Int) -> String { "\(name)-u\(n)" }
    func customer(_ n: Int) -> String { "\(name)-c\(n)" }
    var backend: FraudBackend { fleet.backend(http) }

    /// Plays step `index`, then waits for quiet.
    func play(step index: Int) async throws {
        let step = history.steps[index]
        let before = model
        model.apply(step, at: index)
        try await act(step, at: index, before: before)
        try await quiet.wait()
    }

    /// The end of the history: every short period over, then what each submission and user reads.
    func finish() async throws {
        let ends = purchases.joined().filter(\.isSubscription).compactMap(\.expiresDate).filter { $0 < Self.ms(Date()) + 5_000 }
        if let last = ends.max() {
            let wait = Double(last - Self.ms(Date())) / 1000 + 0.2
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        }
        for job in Set(observed.submissions.map(\.job)) {
            observed.finalVerdicts[job] = await backend.status(job).verdict ?? "?"
        }
        for n in 0..<model.users {
            observed.entitlements[n] = try await entitlements(of: user(n))
        }
        try await readEvents()
    }

    /// The events about this history's purchases, as ops read the outbox.
    static let eventsSQL = """
        SELECT user_id, type,
               coalesce(body->>'original_transaction_id', body->'subscription'->>'original_transaction_id',
                        body->'purchase'->>'original_transaction_id') AS original_transaction_id
        FROM receiptq.events WHERE user_id = ANY($1::text[])
        """

    private func readEvents() async throws {
        let users = (0..<model.users).map(user)
        var purchaseOf: [String: Int] = [:]
        for (index, periods) in purchases.enumerated() { purchaseOf[periods[0].originalTransactionId] = index }
        for row in try await quiet.pool.query(Self.eventsSQL, [users]) {
            guard let original: String = try row.decodeIfPresent("original_transaction_id"), let p = purchaseOf[original],
                  let n = users.firstIndex(of: try row.decode("user_id")) else { continue }
            observed.events.append(Observation.Event(user: n, type: try row.decode("type"), purchase: p))
        }
    }

    var differences: [String] { HistoryCheck.differences(history, model, observed) }

    // MARK: - Steps

    private func act(_ step: Step, at index: Int, before: OwnershipReference) async throws {
        switch step {
        case .order(let u, let product):
            let id = "\(name)-o\(orders.count)"
            let token = UUID()
            orders.append((id, token))
            let answer = await backend.order(id, user: user(u), product: Self.products[product]!.id, appAccountToken: token)
            observed.answers[index] = answer.status == 201
        case .buy(let c, let product, let order, _):
            guard model.world.purchases.count > before.world.purchases.count else { return }
            let short = model.world.purchases.last!.periods[0].short
            let token = model.world.purchases.last!.periods[0].token.map { orders[$0].token.uuidString.lowercased() }
            let bought: FakePurchase = try await admin("purchases", FakePurchaseRequest(
                productId: Self.products[product]!.id, type: Self.products[product]!.fakeType.rawValue, customer: customer(c),
                appAccountToken: token, subscriptionGroupIdentifier: product.isSubscription ? Self.group : nil,
                expiresInSeconds: product.isSubscription ? (short ? 1 : 3600) : nil, notify: true), expect: 201)
            _ = order
            purchases.append([bought])
        case .renew(let p, let short):
            guard grew(p, since: before) else { return }
            try await untilEnded(purchases[p].last!)
            let renewed: FakePurchase = try await admin("renew", Renewal(originalTransactionId: purchases[p][0].originalTransactionId,
                                                                          expiresInSeconds: short ? 1 : 3600), expect: 201)
            purchases[p].append(renewed)
        case .upgrade(let p, _):
            guard grew(p, since: before) else { return }
            let token = model.world.purchases[p].periods.last!.token.map { orders[$0].token.uuidString.lowercased() }
            let upgraded: FakePurchase = try await admin("subscription", FakeSubscriptionChange(
                originalTransactionId: purchases[p][0].originalTransactionId, action: .upgrade, productId: Self.products[.premium]!.id,
                appAccountToken: token), expect: 200)
            purchases[p][purchases[p].count - 1].isUpgraded = true
            purchases[p].append(upgraded)
        case .share(let p, let member):
            guard model.world.purchases.count > before.world.purchases.count else { return }
            let shared: FakePurchase = try await admin("family-share", Named(transactionId: purchases[p].last!.transactionId,
                                                                             customer: customer(member)), expect: 201)
            purchases.append([shared])
        case .refund(let p):
            guard model.world.purchase(p) != before.world.purchase(p) else { return }
            purchases[p][purchases[p].count - 1] = try await admin("refund", Named(transactionId: purchases[p].last!.transactionId), expect: 200)
        case .reverse(let p):
            guard model.world.purchase(p) != before.world.purchase(p) else { return }
            purchases[p][purchases[p].count - 1] = try await admin("reverse-refund", Named(transactionId: purchases[p].last!.transactionId),
                                                                   expect: 200)
        case .deliver(let delivery):
            try await deliver(delivery)
        case .submit(let u, let evidence):
            guard model.submissions.count > before.submissions.count else { return }
            try await submit(user(u), evidence, at: index)
        case .restore(let u, let p):
            guard model.answers[index] != nil else { return }
            let answer = await backend.restore(purchases[p][0].originalTransactionId, user: user(u))
            observed.answers[index] = answer.status == 202
        case .supportGrant(let u, let product):
            manual += 1
            let reference = "\(name)-g\(manual)"
            observed.answers[index] = await supported {
                _ = try SupportLedger.grant(try SupportAction(actor: "model", why: "goodwill"), userID: self.user(u), productID: Self.products[product]!.id,
                                            reference: reference, productType: Self.catalog.first { $0.productID == Self.products[product]!.id }!.type,
                                            expiresAt: product.isSubscription ? Date().addingTimeInterval(30 * 86_400) : nil, on: $0)
            }
        case .supportRevoke(let p):
            guard model.answers[index] != nil else { return }
            let key = Self.purchaseKey(purchases[p].last!)
            observed.answers[index] = await supported {
                _ = try SupportLedger.revoke(try SupportAction(actor: "model", why: "chargeback"), purchaseKey: key, on: $0)
            }
        case .supportTransfer(let p, let to):
            guard model.answers[index] != nil else { return }
            let original = purchases[p][0].originalTransactionId
            observed.answers[index] = await supported {
                _ = try SupportLedger.transfer(try SupportAction(actor: "model", why: "account merge"), originalTransactionID: original,
                                               toUser: self.user(to), on: $0)
            }
        }
    }

    /// Whether the model gave purchase `p` a new period in this step.
    private func grew(_ p: Int, since before: OwnershipReference) -> Bool {
        (model.world.purchase(p)?.periods.count ?? 0) > (before.world.purchase(p)?.periods.count ?? 0)
    }

    /// Apple renews a period once it has ended.
    private func untilEnded(_ period: FakePurchase) async throws {
        guard let end = period.expiresDate else { return }
        let wait = Double(end - Self.ms(Date())) / 1000 + 0.05
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
    }

    private func submit(_ user: String, _ evidence: Evidence, at index: Int) async throws {
        let answer: FraudAnswer
        switch evidence {
        case .signed(let p, let k):
            let t = purchases[p][min(max(k, 0), purchases[p].count - 1)]
            let jws: SignedTransaction = try await admin("signed-transaction", Named(transactionId: t.transactionId), expect: 200)
            answer = await backend.signed(jws.signedTransaction, user: user)
        case .receipt(let p, let from, let through, let k):
            let last = purchases[p].count - 1
            let range = min(max(from, 0), last)...min(max(through, from, 0), last)
            let held = Array(purchases[p][range])
            let identity = "\(p) \(range) " + held.map { $0.isRevoked ? "r" : "-" }.joined()
            let receipt: String
            if let known = receipts[identity] {
                receipt = known
            } else {
                let minted: MintedReceipt = try await admin("receipts", FakeReceipt(bundleID: FraudFleet.bundleID, inApp: held.map { t in
                    FakeTransaction(transactionID: t.transactionId, originalTransactionID: t.originalTransactionId, productID: t.productId,
                                    quantity: t.quantity, purchaseDateMs: t.purchaseDate, expiresDateMs: t.expiresDate,
                                    webOrderLineItemID: t.webOrderLineItemId, ownershipType: Self.namesOwnershipType(history.seed, p) ? t.inAppOwnershipType : nil,
                                    cancellationDateMs: t.revocationDate, appAccountToken: t.appAccountToken)
                }, creationDateMs: Self.ms(Date())), expect: 201)
                receipt = minted.receiptData
                receipts[identity] = receipt
            }
            answer = await backend.receipt(receipt, transaction: purchases[p][min(max(k, 0), last)].transactionId, user: user)
        case .claim(let p, let k, let trusted):
            let t = purchases[p][min(max(k, 0), purchases[p].count - 1)]
            answer = await fleet.backend(http, trusted: trusted).claim(t.transactionId, user: user)
        }
        guard let id = answer.id else { throw FraudError("step \(index): the API answered HTTP \(answer.status) (\(answer.reason ?? "")) for a submission") }
        let final = await backend.final(answer, within: .seconds(60))
        observed.submissions.append(Observation.Submission(step: index, job: id, created: answer.status == 202, verdict: final.verdict ?? "?"))
    }

    /// Hands this history's undelivered notifications to the API, one at a time, as `delivery` says.
    private func deliver(_ delivery: Delivery) async throws {
        let mine = (0..<model.customers).map(customer)
        let all: [FakeSentNotification] = try await adminGet("notifications?" + mine.map { "customer=\($0)" }.joined(separator: "&"))
        let undelivered = all.filter { !handedOver.contains($0.notificationUUID) }
        for notification in undelivered { handedOver.insert(notification.notificationUUID) }
        let ordered: [FakeSentNotification] = switch delivery {
        case .inOrder: undelivered
        case .reversed: undelivered.reversed()
        case .dropFirst: Array(undelivered.dropFirst())
        case .duplicateFirst: undelivered + undelivered.prefix(1)
        }
        for notification in ordered {
            let body = Array(try JSONSerialization.data(withJSONObject: ["signedPayload": notification.signedPayload]))
            let response = try await http.post(url: fleet.apiURL + "/v1/apple/notifications", headers: ["Content-Type": "application/json"],
                                               body: body, timeout: .seconds(15))
            guard response.status == 200 else { throw FraudError("the API answered a notification with HTTP \(response.status)") }
            try await quiet.wait()
        }
    }

    private func entitlements(of user: String) async throws -> Set<Product> {
        let response = try await http.send(.get, url: fleet.apiURL + "/v1/users/\(user)/entitlements",
                                           headers: ["Authorization": "Bearer \(fleet.token)"], timeout: .seconds(15))
        guard response.status == 200, let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
              let list = object["entitlements"] as? [[String: Any]] else {
            throw FraudError("entitlements of \(user): HTTP \(response.status)")
        }
        return Set(list.compactMap { entry in Self.products.first { $0.value.id == entry["product_id"] as? String }?.key })
    }

    /// A support action as the support login makes it: accepted, or refused with a reason.
    private func supported(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async -> Bool {
        do {
            try await support.withConnection(body)
            return true
        } catch {
            return false
        }
    }

    /// The purchase key the ledger gives a transaction (`receiptq.purchase_key`, by the catalog's types).
    static func purchaseKey(_ t: FakePurchase) -> String {
        let family = t.inAppOwnershipType == "FAMILY_SHARED"
        if t.isSubscription {
            let period = t.webOrderLineItemId ?? t.transactionId
            return family ? "family:period:\(t.originalTransactionId):\(period)" : "period:\(period)"
        }
        if family { return "family:purchase:\(t.originalTransactionId)" }
        return "purchase:" + (t.type == FakeProductType.consumable.rawValue ? t.transactionId : t.originalTransactionId)
    }

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// Whether a purchase's receipts say how it is owned: receipts made before iOS 14 do not (half
    /// the purchases, by the history's seed), and its signed transactions always do.
    static func namesOwnershipType(_ seed: UInt64, _ purchase: Int) -> Bool { (seed &+ UInt64(purchase)) % 2 == 0 }

    // MARK: - The fake's admin API

    private struct Renewal: Encodable { var originalTransactionId: String; var expiresInSeconds: Int64 }
    private struct Named: Encodable {
        var transactionId: String
        var customer: String?
        init(transactionId: String, customer: String? = nil) {
            self.transactionId = transactionId
            self.customer = customer
        }
    }
    private struct SignedTransaction: Decodable { var signedTransaction: String }
    private struct MintedReceipt: Decodable {
        var receiptData: String
        enum CodingKeys: String, CodingKey { case receiptData = "receipt_data" }
    }

    private func admin<Body: Encodable, Answer: Decodable>(_ route: String, _ body: Body, expect status: Int) async throws -> Answer {
        let response = try await http.post(url: fleet.fake.adminURL + "/" + route, headers: ["Content-Type": "application/json"],
                                           body: Array(try JSONEncoder().encode(body)), timeout: .seconds(30))
        guard response.status == status else {
            throw FraudError("the fake App Store answered \(route) with HTTP \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        return try JSONDecoder().decode(Answer.self, from: Data(response.body))
    }

    private func adminGet<Answer: Decodable>(_ route: String) async throws -> Answer {
        let response = try await http.send(.get, url: fleet.fake.adminURL + "/" + route, timeout: .seconds(30))
        guard response.status == 200 else { throw FraudError("the fake App Store answered GET \(route) with HTTP \(response.status)") }
        return try JSONDecoder().decode(Answer.self, from: Data(response.body))
    }
}
