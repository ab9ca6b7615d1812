import AppStore
import AppleSignedData
import Foundation
import ReceiptQueue
import Testing
import Worker

/// What a verified receipt, or a signed transaction, tells the subscription model — row by row:
/// which period is current, whether it is a renewal, the renewal info, and when it counts as
/// signed (so an old receipt replayed later never moves a subscription back).
@Suite("Submission facts: what a receipt or a signed transaction says about a subscription")
struct ReceiptSubscriptionFactsTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_790_000_000_000

    /// One `latest_receipt_info` / `in_app` entry, as Apple writes it (every value a string).
    static func period(_ id: String, original: String = "100", product: String = "basic", day n: Int64, upgraded: Bool = false,
                       extra: [String: String] = [:]) -> [String: String] {
        var entry = ["transaction_id": id, "original_transaction_id": original, "product_id": product, "quantity": "1",
                     "purchase_date_ms": String(t0 + n * day), "expires_date_ms": String(t0 + (n + 30) * day),
                     "web_order_line_item_id": "w" + id, "is_trial_period": "false"]
        if upgraded { entry["is_upgraded"] = "true" }
        return entry.merging(extra) { $1 }
    }

    static func response(latest: [[String: String]], inApp: [[String: String]] = [], pending: [[String: String]] = [],
                         created: Int64? = t0 + 40 * day) throws -> VerifyReceiptResponse {
        var receipt: [String: Any] = ["bundle_id": "com.example.app", "in_app": inApp]
        if let created { receipt["receipt_creation_date_ms"] = String(created) }
        let object: [String: Any] = ["status": 0, "receipt": receipt, "latest_receipt_info": latest, "pending_renewal_info": pending]
        return try JSONDecoder().decode(VerifyReceiptResponse.self, from: try JSONSerialization.data(withJSONObject: object))
    }

    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1_000) }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var latest: [[String: String]]
        var inApp: [[String: String]] = []
        var pending: [[String: String]] = []
        var created: Int64? = ReceiptSubscriptionFactsTests.t0 + 40 * ReceiptSubscriptionFactsTests.day
        /// Per original transaction: the current transaction, whether a renewal, its product.
        var expected: [(original: String, transaction: String, renewal: Bool, product: String)]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a consumable's receipt: no period, no fact",
            latest: [], inApp: [["transaction_id": "9", "product_id": "coins", "purchase_date_ms": String(t0)]], expected: []),
        Row(name: "a first purchase: the original transaction, not a renewal",
            latest: [period("100", day: 0)], expected: [("100", "100", false, "basic")]),
        Row(name: "renewals: the latest period by purchase date, a renewal, whatever order Apple lists them in",
            latest: [period("102", day: 60), period("100", day: 0), period("101", day: 30)], expected: [("100", "102", true, "basic")]),
        Row(name: "an upgrade: the period upgraded away is never current; the new one was bought at once (not a renewal)",
            latest: [period("100", day: 0), period("101", day: 10, upgraded: true), period("102", product: "pro", day: 20)],
            expected: [("100", "102", false, "pro")]),
        Row(name: "only an upgraded-away period: nothing to say",
            latest: [period("101", day: 10, upgraded: true)], expected: []),
        Row(name: "a downgrade taking effect: a renewal into the other product",
            latest: [period("100", product: "pro", day: 0), period("101", product: "basic", day: 30)],
            expected: [("100", "101", true, "basic")]),
        Row(name: "two subscriptions (two groups): one fact each, in the answer's order",
            latest: [period("200", original: "200", product: "news", day: 5), period("100", day: 0)],
            expected: [("200", "200", false, "news"), ("100", "100", false, "basic")]),
        Row(name: "a period only the device's copy lists is read too; the server's copy wins for the same id",
            latest: [period("100", day: 0)], inApp: [period("100", day: 0), period("101", day: 30)],
            expected: [("100", "101", true, "basic")]),
        Row(name: "no latest_receipt_info (an older answer): the device's copy",
            latest: [], inApp: [period("100", day: 0)], expected: [("100", "100", false, "basic")]),
        Row(name: "no creation date: signed at the latest purchase the receipt holds",
            latest: [period("100", day: 0)], inApp: [period("100", day: 0)], created: nil, expected: [("100", "100", false, "basic")]),
        Row(name: "neither a creation date nor a dated purchase: no fact (it could not be ordered)",
            latest: [period("100", day: 0)], created: nil, expected: []),
    ]

    @Test("periods: the current one per subscription", arguments: rows)
    func currentPeriod(_ row: Row) throws {
        let facts = SubscriptionFact.receipt(try Self.response(latest: row.latest, inApp: row.inApp, pending: row.pending, created: row.created),
                                             environment: "Production")
        #expect(facts.map(\.originalTransactionID) == row.expected.map(\.original))
        #expect(facts.map { $0.transaction?.transactionID } == row.expected.map(\.transaction))
        #expect(facts.map { $0.transaction?.isRenewal } == row.expected.map(\.renewal))
        #expect(facts.map { $0.transaction?.productID } == row.expected.map(\.product))
        #expect(facts.allSatisfy { $0.source == .receipt && $0.environment == "Production" && $0.status == nil })
    }

    @Test("signed at the receipt's creation; without one, at the latest purchase it holds")
    func signingTime() throws {
        let created = try Self.response(latest: [Self.period("100", day: 0)], created: Self.t0 + 40 * Self.day)
        #expect(SubscriptionFact.receipt(created, environment: "Production").first?.signedAt == Self.date(Self.t0 + 40 * Self.day))
        let old = try Self.response(latest: [Self.period("100", day: 0)], inApp: [Self.period("100", day: 0), Self.period("99", day: -30)],
                                    created: nil)
        #expect(SubscriptionFact.receipt(old, environment: "Production").first?.signedAt == Self.date(Self.t0))
    }

    @Test("pending_renewal_info: auto-renew, the product it renews to, billing retry, grace, price consent, expiration intent")
    func renewal() throws {
        let answer = try Self.response(latest: [Self.period("100", day: 0), Self.period("200", original: "200", product: "news", day: 0)], pending: [
            ["original_transaction_id": "200", "product_id": "news", "auto_renew_product_id": "news", "auto_renew_status": "1"],
            ["original_transaction_id": "100", "product_id": "basic", "auto_renew_product_id": "lite", "auto_renew_status": "0",
             "expiration_intent": "1", "is_in_billing_retry_period": "1", "grace_period_expires_date_ms": String(Self.t0 + 33 * Self.day),
             "price_consent_status": "0"],
        ])
        let facts = SubscriptionFact.receipt(answer, environment: "Sandbox")
        let basic = try #require(facts.first { $0.originalTransactionID == "100" }?.renewal)
        #expect(basic == SubscriptionRenewal(autoRenew: false, renewsToProductID: "lite", expirationIntent: 1, inBillingRetry: true,
                                             gracePeriodExpiresAt: Self.date(Self.t0 + 33 * Self.day), priceIncreaseStatus: 0))
        #expect(facts.first { $0.originalTransactionID == "200" }?.renewal == SubscriptionRenewal(autoRenew: true, renewsToProductID: "news"))
        // Apple's newer spelling of the consent wins over the older one.
        let newer = try Self.response(latest: [Self.period("100", day: 0)], pending: [
            ["original_transaction_id": "100", "price_increase_status": "1", "price_consent_status": "0"]])
        #expect(SubscriptionFact.receipt(newer, environment: "Production").first?.renewal?.priceIncreaseStatus == 1)
        // An entry without an original transaction id is matched by the current product.
        let bare = try Self.response(latest: [Self.period("100", day: 0)], pending: [["product_id": "basic", "auto_renew_status": "0"]])
        #expect(SubscriptionFact.receipt(bare, environment: "Production").first?.renewal?.autoRenew == false)
    }

    @Test("a period's details: offer, refund, family sharing, group")
    func periodDetails() throws {
        func current(_ extra: [String: String]) throws -> SubscriptionTransaction? {
            SubscriptionFact.receipt(try Self.response(latest: [Self.period("100", day: 0, extra: extra)]), environment: "Production")
                .first?.transaction
        }
        #expect(try current([:])?.offer == nil)
        #expect(try current(["is_trial_period": "true"])?.offer == SubscriptionOffer(kind: .introductory, id: nil))
        #expect(try current(["is_in_intro_offer_period": "true"])?.offer == SubscriptionOffer(kind: .introductory, id: nil))
        #expect(try current(["promotional_offer_id": "spring"])?.offer == SubscriptionOffer(kind: .promotional, id: "spring"))
        #expect(try current(["offer_code_ref_name": "CODE1", "promotional_offer_id": "spring"])?.offer
                == SubscriptionOffer(kind: .offerCode, id: "CODE1"))
        let refunded = try current(["cancellation_date_ms": String(Self.t0 + Self.day), "cancellation_reason": "1"])
        #expect(refunded?.revokedAt == Self.date(Self.t0 + Self.day))
        #expect(refunded?.revocationReason == 1)
        #expect(try current(["in_app_ownership_type": "FAMILY_SHARED"])?.familyShared == true)
        #expect(try current(["subscription_group_identifier": "21000000"])?.groupID == "21000000")
        #expect(try current([:])?.webOrderLineItemID == "w100")
        #expect(try current([:])?.expiresAt == Self.date(Self.t0 + 30 * Self.day))
    }

    @Test("a signed transaction: an auto-renewable period is a `transaction` fact signed at its signedDate; nothing else is")
    func signedTransaction() {
        var payload = TransactionPayload()
        payload.transactionId = "2000000001"
        payload.originalTransactionId = "2000000000"
        payload.productId = "com.example.pro"
        payload.type = .autoRenewableSubscription
        payload.purchaseDate = Self.t0
        payload.expiresDate = Self.t0 + 30 * Self.day
        payload.signedDate = Self.t0 + 2 * Self.day
        payload.transactionReason = "RENEWAL"
        let fact = SubscriptionFact.transaction(payload, environment: "Sandbox")
        #expect(fact?.source == .transaction)
        #expect(fact?.originalTransactionID == "2000000000")
        #expect(fact?.environment == "Sandbox")
        #expect(fact?.signedAt == Self.date(Self.t0 + 2 * Self.day))
        #expect(fact?.transaction?.isRenewal == true)
        #expect(fact?.renewal == nil && fact?.status == nil)

        var unsigned = payload
        unsigned.signedDate = nil
        #expect(SubscriptionFact.transaction(unsigned, environment: "Sandbox") == nil, "no signing time: it could not be ordered")
        var nonRenewing = payload
        nonRenewing.type = .nonRenewingSubscription
        #expect(SubscriptionFact.transaction(nonRenewing, environment: "Sandbox") == nil)
        var consumable = payload
        consumable.type = .consumable
        consumable.expiresDate = nil
        #expect(SubscriptionFact.transaction(consumable, environment: "Sandbox") == nil)
    }
}
