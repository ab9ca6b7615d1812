import FakeAppStore
import Foundation
import HTTPClient
import Postgres
import Synchronization

/// Apple's side of the notifications phase of a chaos run. The fake App Store (in this process)
/// POSTs every notification it makes to the API child, as Apple does, and retries what was not
/// answered 200 on Apple's schedule (1, 12, 24, 48, 72 h ÷ `retryCompression`). Meanwhile this
/// script makes `target` notifications over the fault window, while workers die and PostgreSQL
/// restarts:
/// - first, `subjects` purchases (consumables, non-consumables, monthly subscriptions), each
///   submitted by its app through `POST /v1/transactions` and granted by the product: refunds
///   need grants to revoke;
/// - then, one action at a time on a granted purchase: REFUND, REFUND_REVERSED, DID_RENEW (a new
///   period, which the product must grant to the subscriber once); a duplicate delivery (the
///   exact payload of a notification already delivered, POSTed again); and a reordered pair —
///   signed here with the fake's CA (`signedNotification`), the newer REFUND_REVERSED delivered
///   before the older REFUND, which must then change nothing.
/// The fake's state is the truth the ledger is checked against (`ChaosNotificationChecks`).
final class ChaosNotifications: Sendable {
    static let retryCompression = 7_200.0   // Apple's 1 h becomes 0.5 s, the whole schedule 78 s

    struct Subject: Sendable {
        var purchase: FakePurchase
        var user: String
        /// Reserved for one reordered pair and nothing else, so the pair is its last word.
        var reorder: Bool
        var reordered = false
    }

    struct State: Sendable {
        var subjects: [Subject] = []
        /// UUIDs of the notifications this script signed and delivered itself (the reordered pairs).
        var crafted: [String] = []
        var duplicatesPosted = 0
        /// Deliveries of ours the API never answered 200 before the give-up time.
        var undelivered = 0
        var submissionsRefused = 0
        var actions: [String: Int] = [:]
    }

    let fake: FakeServerAPI
    let apiURL: String
    let token: String
    let http: HTTPClient
    let target: Int
    private let state = Mutex(State())

    init(fake: FakeServerAPI, apiURL: String, token: String, http: HTTPClient, target: Int) {
        self.fake = fake
        self.apiURL = apiURL
        self.token = token
        self.http = http
        self.target = target
    }

    func snapshot() -> State { state.withLock { $0 } }

    /// Notifications made so far: the fake's and the reordered pairs'.
    var made: Int { fake.notifications.all().count + state.withLock { $0.crafted.count } }

    /// Buys and submits the subjects, then acts until `target` notifications are made or `stop`.
    func run(pool: PostgresPool, stop: ContinuousClock.Instant, giveUpAt: ContinuousClock.Instant) async {
        guard target > 0 else { return }
        let subjects = max(40, target / 4)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<subjects {
                group.addTask { await self.buyAndSubmit(index, giveUpAt: giveUpAt) }
            }
        }
        // Paced to spread what is left over the time left; each action runs in a task of its own,
        // so a delivery waiting out a PostgreSQL restart does not hold up the rest.
        var granted: Set<String> = []
        var refreshed = ContinuousClock.now - .seconds(1)
        await withTaskGroup(of: Void.self) { group in
            while made < target, ContinuousClock.now < stop {
                if ContinuousClock.now - refreshed >= .milliseconds(500) {
                    if let rows = try? await pool.query("SELECT transaction_id FROM receiptq.grants") {
                        granted = Set(rows.compactMap { try? $0.decode("transaction_id", as: String.self) })
                    }
                    refreshed = ContinuousClock.now
                }
                let known = granted
                group.addTask { await self.act(granted: known, giveUpAt: giveUpAt) }
                let pace = (stop - ContinuousClock.now) / Double(max(1, target - made))
                try? await Task.sleep(for: min(max(pace, .milliseconds(1)), .milliseconds(250)))
            }
        }
    }

    private func buyAndSubmit(_ index: Int, giveUpAt: ContinuousClock.Instant) async {
        let kinds: [(String, FakeProductType)] = [("com.example.chaos.gems", .consumable), ("com.example.chaos.pro", .nonConsumable),
                                                  ("com.example.chaos.monthly", .autoRenewable)]
        let (product, type) = kinds[index % kinds.count]
        guard let purchase = try? fake.buy(FakePurchaseRequest(productId: product, type: type.rawValue, customer: "chaos-customer-\(index)",
                                                               expiresInSeconds: type == .autoRenewable ? 3600 : nil, notify: false)) else { return }
        let user = "chaos-notify-user-\(index)"
        state.withLock { $0.subjects.append(Subject(purchase: purchase, user: user, reorder: type != .autoRenewable && index % 10 == 1)) }
        let body = try? JSONSerialization.data(withJSONObject: ["signed_transaction": fake.signer.signTransaction(purchase), "user_id": user])
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        while ContinuousClock.now < giveUpAt, let body {
            let status = (try? await http.post(url: apiURL + "/v1/transactions", headers: headers, body: Array(body), timeout: .seconds(10)))?.status ?? 0
            if status == 200 || status == 202 { return }
            if (400..<500).contains(status) && status != 429 { break }
            try? await Task.sleep(for: .milliseconds(Int64.random(in: 500...1_000)))
        }
        state.withLock { $0.submissionsRefused += 1 }
    }

    /// One action on a granted purchase, chosen at random among those that apply now.
    private func act(granted: Set<String>, giveUpAt: ContinuousClock.Instant) async {
        let subjects = state.withLock { $0.subjects }
        let ready = subjects.indices.filter { granted.contains(subjects[$0].purchase.transactionId) }
        guard !ready.isEmpty else { return }
        let roll = Double.random(in: 0..<1)
        let latest = { (subject: Subject) in self.fake.purchases.all().filter { $0.originalTransactionId == subject.purchase.originalTransactionId } }
        if roll < 0.12, let index = ready.filter({ subjects[$0].reorder && !subjects[$0].reordered }).randomElement() {
            await reorderedPair(index, giveUpAt: giveUpAt)
        } else if roll < 0.27, let delivered = fake.notifications.all().filter(\.delivered).randomElement() {
            count("duplicate")
            await deliver(delivered.signedPayload, giveUpAt: giveUpAt)
            state.withLock { $0.duplicatesPosted += 1 }
        } else if roll < 0.60, let index = ready.filter({ subjects[$0].purchase.isSubscription }).randomElement(),
                  let period = latest(subjects[index]).max(by: { $0.purchaseDate < $1.purchaseDate }), granted.contains(period.transactionId) {
            if (try? fake.renew(originalTransactionId: period.originalTransactionId, expiresInSeconds: 3600)) != nil { count("DID_RENEW") }
        } else if let index = ready.filter({ !subjects[$0].purchase.isSubscription && !subjects[$0].reorder }).randomElement() {
            let transaction = subjects[index].purchase.transactionId
            if fake.purchases.transaction(transaction, in: .production)?.isRevoked == true {
                if (try? fake.reverseRefund(transactionId: transaction)) != nil { count("REFUND_REVERSED") }
            } else if (try? fake.refund(transactionId: transaction, reason: Int.random(in: 0...1))) != nil {
                count("REFUND")
            }
        }
    }

    /// Apple's REFUND (older) and REFUND_REVERSED (newer) for one purchase, delivered newest first.
    private func reorderedPair(_ index: Int, giveUpAt: ContinuousClock.Instant) async {
        let subject = state.withLock { state in
            state.subjects[index].reordered = true
            return state.subjects[index]
        }
        guard let current = fake.purchases.transaction(subject.purchase.transactionId, in: .production) else { return }
        let now = Date()
        var refunded = current
        refunded.revocationDate = Int64((now.timeIntervalSince1970 - 2) * 1000)
        refunded.revocationReason = 0
        let (older, newer) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        let refund = fake.signedNotification("REFUND", about: refunded, signedAt: now.addingTimeInterval(-2), uuid: older)
        let reversal = fake.signedNotification("REFUND_REVERSED", about: current, signedAt: now.addingTimeInterval(-1), uuid: newer)
        state.withLock { $0.crafted += [newer, older] }
        count("reordered pair")
        await deliver(reversal, giveUpAt: giveUpAt)
        await deliver(refund, giveUpAt: giveUpAt)
    }

    /// POSTs a signed payload as Apple would (no token) until it is answered 200.
    private func deliver(_ signedPayload: String, giveUpAt: ContinuousClock.Instant) async {
        let body = FakeNotificationsBody.make(signedPayload)
        while ContinuousClock.now < giveUpAt {
            let answer = try? await http.post(url: apiURL + "/v1/apple/notifications", headers: ["Content-Type": "application/json"],
                                              body: body, timeout: .seconds(10))
            if answer?.status == 200 { return }
            try? await Task.sleep(for: .milliseconds(500))
        }
        state.withLock { $0.undelivered += 1 }
    }

    private func count(_ action: String) { state.withLock { $0.actions[action, default: 0] += 1 } }
}

/// The body Apple POSTs: `{"signedPayload": "…"}` (a JWS has no character JSON must escape).
enum FakeNotificationsBody {
    static func make(_ signedPayload: String) -> [UInt8] {
        Array(#"{"signedPayload":""#.utf8) + Array(signedPayload.utf8) + Array(#""}"#.utf8)
    }
}
