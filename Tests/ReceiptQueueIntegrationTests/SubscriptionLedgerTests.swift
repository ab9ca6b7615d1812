import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// A subscription's facts as the database keeps them: the model's snapshot and columns, one
/// `subscription.*` event per change for the subscription's user, and entitlements that follow
/// the product in effect in the group — by the names the catalog gives.
@Suite("Subscriptions in the ledger: state, events and entitlements by name")
struct SubscriptionLedgerTests {
    static let day: TimeInterval = 86_400
    /// Now: the facts below are signed around it, their periods end after it.
    static let now = Date()
    static func at(_ days: Double) -> Date { now.addingTimeInterval(days * day) }

    struct Ledger {
        let fixture: QueueFixture

        static func make() async throws -> Ledger {
            let fixture = try await QueueFixture.make()
            // A group with two levels: pro (1, the highest) above basic (2); pro unlocks two names.
            try await fixture.pool.query("""
                INSERT INTO receiptq.products (product_id, type, subscription_group, group_level, entitlements) VALUES
                    ('com.example.pro', 'auto_renewable', 'g1', 1, '{pro,sync}'),
                    ('com.example.basic', 'auto_renewable', 'g1', 2, NULL)
                """)
            return Ledger(fixture: fixture)
        }

        /// A period granted to `user`, as the worker records it.
        func grant(_ transactionID: String, original: String = "1000", product: String, user: String = "u1", expires: Date) async throws {
            try await fixture.pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", [original, user])
            try await fixture.pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                             product_type, expires_date)
                VALUES ($1, $2, 1, $3, $4, 'Production', 'period:' || $2 || ':' || $1, 'auto_renewable', to_timestamp($5 / 1000.0))
                """, [transactionID, original, user, product, Int64(expires.timeIntervalSince1970 * 1000)])
        }

        /// Applies `fact` with its events, in one transaction, as a worker does.
        @discardableResult
        func apply(_ fact: SubscriptionFact, now: Date = SubscriptionLedgerTests.now) async throws -> ApplySubscriptionFact.Result {
            try await fixture.pool.transaction { connection in
                let result = try ApplySubscriptionFact.run(fact, now: now, on: connection)
                try AppendEvents.run(result.events, on: connection)
                return result
            }
        }

        func events(_ user: String = "u1") async throws -> [String] {
            try await fixture.pool.query("SELECT type FROM receiptq.events WHERE user_id = $1 ORDER BY sequence", [user])
                .map { try $0.decode("type", as: String.self) }
        }

        func entitlements(_ user: String = "u1", billingRetryAccess: Bool = false) async throws -> [Entitlement] {
            try await fixture.pool.withConnection { try ListEntitlements.run(userID: user, billingRetryAccess: billingRetryAccess, on: $0) }
        }

        func row(_ column: String) async throws -> String? {
            try await fixture.pool.query("SELECT \(column)::text AS value FROM receiptq.subscriptions WHERE original_transaction_id = '1000'")
                .first?.decodeIfPresent("value")
        }
    }

    static func fact(_ type: String, _ subtype: String? = nil, signed: Double, transaction: SubscriptionTransaction? = nil,
                     renewal: SubscriptionRenewal? = nil, status: Int? = nil) -> SubscriptionFact {
        SubscriptionFact(source: .notification(type: type, subtype: subtype), originalTransactionID: "1000", environment: "Production",
                         signedAt: at(signed), transaction: transaction, renewal: renewal, status: status)
    }

    static func period(_ id: String, _ product: String, from: Double, to: Double, renewal: Bool = false,
                       upgraded: Bool = false) -> SubscriptionTransaction {
        SubscriptionTransaction(transactionID: id, webOrderLineItemID: "w" + id, productID: product, groupID: "g1", purchasedAt: at(from),
                                expiresAt: at(to), isUpgraded: upgraded, isRenewal: renewal)
    }

    @Test("an upgrade moves access to the higher product at once, under the catalog's names, and says so")
    func upgrade() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.grant("1000", product: "com.example.basic", expires: Self.at(20))
        try await ledger.apply(Self.fact("SUBSCRIBED", "INITIAL_BUY", signed: -10,
                                         transaction: Self.period("1000", "com.example.basic", from: -10, to: 20),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic"), status: 1))
        #expect(try await ledger.entitlements().map(\.entitlements) == [["com.example.basic"]])

        try await ledger.grant("1001", product: "com.example.pro", expires: Self.at(30))
        try await ledger.apply(Self.fact("DID_CHANGE_RENEWAL_PREF", "UPGRADE", signed: -1,
                                         transaction: Self.period("1001", "com.example.pro", from: -1, to: 30),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.pro"), status: 1))
        let entitlements = try await ledger.entitlements()
        #expect(entitlements.map(\.productID) == ["com.example.pro"], "the basic grant's period has not ended, but its access has")
        #expect(entitlements.first?.entitlements == ["pro", "sync"])
        #expect(entitlements.first?.subscriptionState == "active")
        #expect(try await ledger.events() == ["subscription.purchased", "subscription.product_changed"])
        let body = try await ledger.fixture.pool.query(
            "SELECT body::text AS body FROM receiptq.events WHERE type = 'subscription.product_changed'")[0].decode("body", as: String.self)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let change = json["change"] as? [String: String]
        #expect(change?["kind"] == "upgrade" && change?["effective"] == "immediate" && change?["to_product_id"] == "com.example.pro")
        #expect((json["subscription"] as? [String: Any])?["product_id"] as? String == "com.example.pro")
    }

    @Test("a downgrade waits for the renewal: access stays, the pending product shows, the renewal moves it")
    func downgrade() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.grant("1000", product: "com.example.pro", expires: Self.at(1))
        try await ledger.apply(Self.fact("SUBSCRIBED", "INITIAL_BUY", signed: -29, transaction: Self.period("1000", "com.example.pro", from: -29, to: 1),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.pro"), status: 1))
        try await ledger.apply(Self.fact("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", signed: -2,
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic"), status: 1))
        #expect(try await ledger.entitlements().map(\.productID) == ["com.example.pro"])
        #expect(try await ledger.entitlements().first?.renewsToProductID == "com.example.basic")
        #expect(try await ledger.row("renews_to_product_id") == "com.example.basic")

        try await ledger.grant("1001", product: "com.example.basic", expires: Self.at(31))
        try await ledger.apply(Self.fact("DID_RENEW", signed: 1.01, transaction: Self.period("1001", "com.example.basic", from: 1, to: 31, renewal: true),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic"), status: 1))
        #expect(try await ledger.entitlements().map(\.productID) == ["com.example.basic"])
        #expect(try await ledger.events() == ["subscription.purchased", "subscription.product_change_scheduled",
                                              "subscription.product_changed", "subscription.renewed"])
    }

    @Test("a renewal-date extension shows in the entitlement's expiry")
    func extensionShows() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.grant("1000", product: "com.example.basic", expires: Self.at(2))
        try await ledger.apply(Self.fact("SUBSCRIBED", signed: -28, transaction: Self.period("1000", "com.example.basic", from: -28, to: 2), status: 1))
        try await ledger.apply(Self.fact("RENEWAL_EXTENDED", signed: -1, transaction: Self.period("1000", "com.example.basic", from: -28, to: 9), status: 1))
        let expires = try #require(try await ledger.entitlements().first?.expiresDate)
        #expect(abs(expires.timeIntervalSince(Self.at(9))) < 1)
        #expect(try await ledger.events().last == "subscription.extended")
    }

    @Test("a grace period keeps access until it ends; billing retry does not, unless the operator allows it")
    func billing() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.grant("1000", product: "com.example.basic", expires: Self.at(-1))
        try await ledger.apply(Self.fact("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: -0.9,
                                         transaction: Self.period("1000", "com.example.basic", from: -31, to: -1),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic",
                                                                      inBillingRetry: true, gracePeriodExpiresAt: Self.at(5)),
                                         status: 4))
        #expect(try await ledger.entitlements().first?.subscriptionState == "grace_period")
        try await ledger.apply(Self.fact("GRACE_PERIOD_EXPIRED", signed: -0.1,
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic",
                                                                      inBillingRetry: true, gracePeriodExpiresAt: nil),
                                         status: 3))
        #expect(try await ledger.entitlements().isEmpty)
        #expect(try await ledger.entitlements(billingRetryAccess: true).first?.subscriptionState == "billing_retry")
        #expect(try await ledger.row("state") == "billing_retry")
    }

    @Test("the same notification twice, or a late one, changes nothing and tells nobody")
    func repeatsAndLateFacts() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.grant("1000", product: "com.example.basic", expires: Self.at(20))
        let bought = Self.fact("SUBSCRIBED", signed: -10, transaction: Self.period("1000", "com.example.basic", from: -10, to: 20),
                               renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic"), status: 1)
        let off = Self.fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: -2,
                            renewal: SubscriptionRenewal(autoRenew: false, renewsToProductID: "com.example.basic"), status: 1)
        #expect(try await ledger.apply(bought).changed)
        #expect(try await ledger.apply(off).changed)
        #expect(try await ledger.apply(off).changed == false)
        #expect(try await ledger.apply(bought).changed == false, "signed before what is known")
        #expect(try await ledger.events() == ["subscription.purchased", "subscription.auto_renew_disabled"])
        #expect(try await ledger.row("auto_renew_status") == "0")
    }

    @Test("facts before the user is known are kept silently; the user then hears where it stands, once")
    func introducedWhenTheUserIsKnown() async throws {
        let ledger = try await Ledger.make()
        defer { ledger.fixture.shutdown() }
        try await ledger.apply(Self.fact("SUBSCRIBED", signed: -10, transaction: Self.period("1000", "com.example.basic", from: -10, to: 20),
                                         renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.basic"), status: 1))
        #expect(try await ledger.fixture.count("SELECT count(*) AS count FROM receiptq.events") == 0)
        #expect(try await ledger.row("user_id") == nil)
        try await ledger.grant("1000", product: "com.example.basic", expires: Self.at(20))
        try await ledger.apply(Self.fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: -2,
                                         renewal: SubscriptionRenewal(autoRenew: false, renewsToProductID: "com.example.basic"), status: 1))
        #expect(try await ledger.row("user_id") == "u1")
        #expect(try await ledger.events() == ["subscription.purchased"], "an introduction of where it stands, not a diff never seen")
        #expect(try await ledger.row("auto_renew_status") == "0")
    }
}
