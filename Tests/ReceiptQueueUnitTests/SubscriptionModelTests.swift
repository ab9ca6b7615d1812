import Foundation
import ReceiptQueue
import Testing

/// The subscription model as a table: every lifecycle transition Apple can report, from a
/// starting state, to the state, product and events a backend sees. Days count from `t0`; the
/// clock (`now`) is the fact's signing time unless a row says otherwise.
@Suite("Subscription model: each lifecycle transition")
struct SubscriptionModelTests {
    static let t0 = Date(timeIntervalSince1970: 1_780_000_000)
    static func day(_ n: Double) -> Date { t0.addingTimeInterval(n * 86_400) }

    static let model = SubscriptionModel(levels: ["premium": 1, "standard": 2, "lite": 3, "standard.yearly": 2])

    static func tx(_ id: String, _ product: String = "standard", from start: Double, days: Double = 30, renewal: Bool = true,
                   offer: SubscriptionOffer? = nil, upgraded: Bool = false, revoked: Double? = nil, refundReason: Int? = nil,
                   family: Bool = false, expires: Double? = nil) -> SubscriptionTransaction {
        SubscriptionTransaction(transactionID: id, webOrderLineItemID: "w-" + id, productID: product, groupID: "g", purchasedAt: day(start),
                                expiresAt: day(expires ?? start + days), offer: offer, isUpgraded: upgraded, revokedAt: revoked.map(day),
                                revocationReason: refundReason, isRenewal: renewal, familyShared: family)
    }

    static func renewal(_ on: Bool = true, to product: String = "standard", intent: Int? = nil, retry: Bool? = nil, grace: Double? = nil,
                        price: Int? = nil) -> SubscriptionRenewal {
        SubscriptionRenewal(autoRenew: on, renewsToProductID: product, expirationIntent: intent, inBillingRetry: retry,
                            gracePeriodExpiresAt: grace.map(day), priceIncreaseStatus: price)
    }

    static func fact(_ type: String, _ subtype: String? = nil, at: Double, tx: SubscriptionTransaction? = nil,
                     renewal: SubscriptionRenewal? = nil, status: Int? = nil) -> SubscriptionFact {
        SubscriptionFact(source: .notification(type: type, subtype: subtype), originalTransactionID: "1000", environment: "Production",
                         signedAt: day(at), transaction: tx, renewal: renewal, status: status)
    }

    /// A standard monthly subscription bought at day 0, renewing, as an INITIAL_BUY left it.
    static var bought: Subscription {
        model.apply(fact("SUBSCRIBED", "INITIAL_BUY", at: 0, tx: tx("1000", from: 0, renewal: false), renewal: renewal(), status: 1),
                    to: nil, now: day(0))!.subscription
    }

    static func after(_ facts: [SubscriptionFact], from start: Subscription? = nil) -> Subscription {
        var s = start ?? bought
        for f in facts { s = model.apply(f, to: s, now: f.signedAt)!.subscription }
        return s
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var from: @Sendable () -> Subscription?
        var fact: SubscriptionFact
        var now: Date? = nil
        var status: SubscriptionStatus
        var product: String
        var events: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "initial purchase", from: { nil },
            fact: fact("SUBSCRIBED", "INITIAL_BUY", at: 0, tx: tx("1000", from: 0, renewal: false), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["purchased"]),
        Row(name: "initial purchase with an introductory offer", from: { nil },
            fact: fact("SUBSCRIBED", "INITIAL_BUY", at: 0, tx: tx("1000", from: 0, days: 7, renewal: false,
                                                                 offer: SubscriptionOffer(kind: .introductory, id: nil)), status: 1),
            status: .active, product: "standard", events: ["purchased"]),
        Row(name: "renewal", from: { bought },
            fact: fact("DID_RENEW", at: 30, tx: tx("1001", from: 30), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["renewed"]),
        Row(name: "upgrade (immediate)", from: { bought },
            fact: fact("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: 10, tx: tx("1001", "premium", from: 10, renewal: false),
                       renewal: renewal(to: "premium"), status: 1),
            status: .active, product: "premium", events: ["product_changed"]),
        Row(name: "downgrade scheduled for the renewal", from: { bought },
            fact: fact("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", at: 10, tx: tx("1000", from: 0, renewal: false),
                       renewal: renewal(to: "lite"), status: 1),
            status: .active, product: "standard", events: ["product_change_scheduled"]),
        Row(name: "scheduled downgrade cancelled", from: {
                after([fact("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", at: 10, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(to: "lite"), status: 1)])
            },
            fact: fact("DID_CHANGE_RENEWAL_PREF", at: 12, tx: tx("1000", from: 0, renewal: false), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["product_change_cancelled"]),
        Row(name: "downgrade takes effect at renewal", from: {
                after([fact("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", at: 10, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(to: "lite"), status: 1)])
            },
            fact: fact("DID_RENEW", at: 30, tx: tx("1001", "lite", from: 30), renewal: renewal(to: "lite"), status: 1),
            status: .active, product: "lite", events: ["product_changed", "renewed"]),
        Row(name: "crossgrade to the yearly plan at renewal", from: {
                after([fact("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", at: 10, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(to: "standard.yearly"), status: 1)])
            },
            fact: fact("DID_RENEW", at: 30, tx: tx("1001", "standard.yearly", from: 30, days: 365), renewal: renewal(to: "standard.yearly"), status: 1),
            status: .active, product: "standard.yearly", events: ["product_changed", "renewed"]),
        Row(name: "auto-renew turned off", from: { bought },
            fact: fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: 5, tx: tx("1000", from: 0, renewal: false),
                       renewal: renewal(false, intent: 1), status: 1),
            status: .active, product: "standard", events: ["auto_renew_disabled"]),
        Row(name: "auto-renew turned back on", from: {
                after([fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: 5, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(false, intent: 1), status: 1)])
            },
            fact: fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", at: 6, tx: tx("1000", from: 0, renewal: false), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["auto_renew_enabled"]),
        Row(name: "billing issue with a grace period", from: { bought },
            fact: fact("DID_FAIL_TO_RENEW", "GRACE_PERIOD", at: 30, tx: tx("1000", from: 0, renewal: false),
                       renewal: renewal(intent: 2, retry: true, grace: 46), status: 4),
            status: .gracePeriod, product: "standard", events: ["billing_issue", "grace_period_started"]),
        Row(name: "billing issue without a grace period", from: { bought },
            fact: fact("DID_FAIL_TO_RENEW", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(intent: 2, retry: true), status: 3),
            status: .billingRetry, product: "standard", events: ["billing_issue"]),
        Row(name: "grace period expired (billing retry continues)", from: {
                after([fact("DID_FAIL_TO_RENEW", "GRACE_PERIOD", at: 30, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(intent: 2, retry: true, grace: 46), status: 4)])
            },
            fact: fact("GRACE_PERIOD_EXPIRED", at: 46, tx: tx("1000", from: 0, renewal: false), renewal: renewal(intent: 2, retry: true), status: 3),
            status: .billingRetry, product: "standard", events: ["grace_period_expired"]),
        Row(name: "billing recovered: renewed", from: {
                after([fact("DID_FAIL_TO_RENEW", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(intent: 2, retry: true), status: 3)])
            },
            fact: fact("DID_RENEW", "BILLING_RECOVERY", at: 33, tx: tx("1001", from: 33), renewal: renewal(retry: false), status: 1),
            status: .active, product: "standard", events: ["renewed"]),
        Row(name: "billing recovered in the grace period, before the new period is seen (a status check)", from: {
                after([fact("DID_FAIL_TO_RENEW", "GRACE_PERIOD", at: 30, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(intent: 2, retry: true, grace: 36), status: 4)])
            },
            fact: SubscriptionFact(source: .statusCheck, originalTransactionID: "1000", environment: "Production", signedAt: day(32),
                                   renewal: renewal(retry: false), status: 1),
            status: .active, product: "standard", events: ["billing_recovered"]),
        Row(name: "expired: the customer turned renewal off", from: {
                after([fact("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: 5, tx: tx("1000", from: 0, renewal: false),
                            renewal: renewal(false, intent: 1), status: 1)])
            },
            fact: fact("EXPIRED", "VOLUNTARY", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(false, intent: 1), status: 2),
            status: .expired, product: "standard", events: ["expired"]),
        Row(name: "expired: billing retry ended", from: {
                after([fact("DID_FAIL_TO_RENEW", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(intent: 2, retry: true), status: 3)])
            },
            fact: fact("EXPIRED", "BILLING_RETRY", at: 90, tx: tx("1000", from: 0, renewal: false), renewal: renewal(false, intent: 2, retry: false), status: 2),
            status: .expired, product: "standard", events: ["expired"]),
        Row(name: "expired: price increase declined", from: { bought },
            fact: fact("EXPIRED", "PRICE_INCREASE", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(false, intent: 3), status: 2),
            status: .expired, product: "standard", events: ["expired"]),
        Row(name: "resubscribed after expiring", from: {
                after([fact("EXPIRED", "VOLUNTARY", at: 30, tx: tx("1000", from: 0, renewal: false), renewal: renewal(false, intent: 1), status: 2)])
            },
            fact: fact("SUBSCRIBED", "RESUBSCRIBE", at: 50, tx: tx("1002", from: 50, renewal: false), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["resubscribed"]),
        Row(name: "renewal date extended", from: { bought },
            fact: fact("RENEWAL_EXTENDED", at: 20, tx: tx("1000", from: 0, renewal: false, expires: 37), renewal: renewal(), status: 1),
            status: .active, product: "standard", events: ["extended"]),
        Row(name: "refund of the current period", from: { bought },
            fact: fact("REFUND", at: 10, tx: tx("1000", from: 0, renewal: false, revoked: 10, refundReason: 1), status: 5),
            status: .revoked, product: "standard", events: ["refunded"]),
        Row(name: "refund reversed", from: {
                after([fact("REFUND", at: 10, tx: tx("1000", from: 0, renewal: false, revoked: 10, refundReason: 0), status: 5)])
            },
            fact: fact("REFUND_REVERSED", at: 12, tx: tx("1000", from: 0, renewal: false), status: 1),
            status: .active, product: "standard", events: ["refund_reversed"]),
        Row(name: "family sharing revoked", from: {
                model.apply(fact("SUBSCRIBED", "INITIAL_BUY", at: 0, tx: tx("1000", from: 0, renewal: false, family: true), status: 1),
                            to: nil, now: day(0))!.subscription
            },
            fact: fact("REVOKE", at: 8, tx: tx("1000", from: 0, renewal: false, revoked: 8, family: true), status: 5),
            status: .revoked, product: "standard", events: ["revoked"]),
        Row(name: "price increase asked", from: { bought },
            fact: fact("PRICE_INCREASE", "PENDING", at: 20, tx: tx("1000", from: 0, renewal: false), renewal: renewal(price: 0), status: 1),
            status: .active, product: "standard", events: ["price_increase"]),
        Row(name: "price increase agreed", from: {
                after([fact("PRICE_INCREASE", "PENDING", at: 20, tx: tx("1000", from: 0, renewal: false), renewal: renewal(price: 0), status: 1)])
            },
            fact: fact("PRICE_INCREASE", "ACCEPTED", at: 21, tx: tx("1000", from: 0, renewal: false), renewal: renewal(price: 1), status: 1),
            status: .active, product: "standard", events: ["price_increase"]),
        Row(name: "offer code redeemed on renewal", from: { bought },
            fact: fact("OFFER_REDEEMED", at: 30, tx: tx("1001", from: 30, offer: SubscriptionOffer(kind: .offerCode, id: "SPRING")), status: 1),
            status: .active, product: "standard", events: ["renewed"]),
    ]

    @Test(arguments: rows)
    func eachTransitionGivesItsStateProductAndEvents(_ row: Row) throws {
        let step = try #require(Self.model.apply(row.fact, to: row.from(), now: row.now ?? row.fact.signedAt))
        #expect(step.subscription.status == row.status)
        #expect(step.subscription.productID == row.product)
        #expect(step.changes.map(\.name) == row.events)
        #expect(step.changed)
    }

    @Test(arguments: rows)
    func theSameFactAppliedTwiceChangesNothingMore(_ row: Row) throws {
        let once = try #require(Self.model.apply(row.fact, to: row.from(), now: row.fact.signedAt))
        let twice = try #require(Self.model.apply(row.fact, to: once.subscription, now: row.fact.signedAt))
        #expect(twice.subscription == once.subscription)
        #expect(twice.changes.isEmpty)
        #expect(!twice.changed)
    }

    @Test func aLateNotificationNeverMovesTheSubscriptionBack() throws {
        let renewed = Self.after([Self.fact("DID_RENEW", at: 30, tx: Self.tx("1001", from: 30), renewal: Self.renewal(), status: 1)])
        // The billing issue of day 29 arrives after the renewal of day 30.
        let late = Self.fact("DID_FAIL_TO_RENEW", at: 29, tx: Self.tx("1000", from: 0, renewal: false),
                             renewal: Self.renewal(intent: 2, retry: true), status: 3)
        let step = try #require(Self.model.apply(late, to: renewed, now: Self.day(31)))
        #expect(step.subscription == renewed)
        #expect(step.changes.isEmpty)
    }

    @Test func anOlderPeriodFromHistoryIsNotTheCurrentOne() throws {
        let renewed = Self.after([Self.fact("DID_RENEW", at: 30, tx: Self.tx("1001", from: 30), renewal: Self.renewal(), status: 1)])
        let history = SubscriptionFact(source: .history, originalTransactionID: "1000", environment: "Production", signedAt: Self.day(40),
                                       transaction: Self.tx("1000", from: 0, renewal: false))
        let step = try #require(Self.model.apply(history, to: renewed, now: Self.day(40)))
        #expect(step.subscription.transactionID == "1001")
        #expect(step.changes.isEmpty && step.corrections.isEmpty)
    }

    @Test func anUpgradedAwayPeriodIsNeverTheCurrentOne() throws {
        let upgraded = Self.after([Self.fact("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: 10,
                                             tx: Self.tx("1001", "premium", from: 10, renewal: false),
                                             renewal: Self.renewal(to: "premium"), status: 1)])
        let old = SubscriptionFact(source: .history, originalTransactionID: "1000", environment: "Production", signedAt: Self.day(11),
                                   transaction: Self.tx("1000", from: 0, renewal: false, upgraded: true))
        let step = try #require(Self.model.apply(old, to: upgraded, now: Self.day(11)))
        #expect(step.subscription.productID == "premium")
        #expect(Self.model.apply(old, to: nil, now: Self.day(11)) == nil, "an upgraded-away period alone starts nothing")
    }

    @Test func aStatusCheckCorrectsAMissedExpiryAndSaysWhat() throws {
        let check = SubscriptionFact(source: .statusCheck, originalTransactionID: "1000", environment: "Production", signedAt: Self.day(31),
                                     transaction: Self.tx("1000", from: 0, renewal: false), renewal: Self.renewal(false, intent: 1), status: 2)
        let step = try #require(Self.model.apply(check, to: Self.bought, now: Self.day(31)))
        #expect(step.subscription.status == .expired)
        #expect(step.subscription.expirationReason == .voluntary)
        #expect(step.changes.map(\.name) == ["expired"])
        #expect(step.corrections == ["status", "auto_renew"])
    }

    @Test func aStatusCheckCorrectsAMissedRenewal() throws {
        let check = SubscriptionFact(source: .statusCheck, originalTransactionID: "1000", environment: "Production", signedAt: Self.day(35),
                                     transaction: Self.tx("1001", from: 30), renewal: Self.renewal(), status: 1)
        let step = try #require(Self.model.apply(check, to: Self.bought, now: Self.day(35)))
        #expect(step.changes.map(\.name) == ["renewed"])
        #expect(step.corrections == ["expires_at"])
    }

    @Test func withoutAStatedStatusTheDatesDecide() {
        var s = Self.bought
        #expect(SubscriptionModel.impliedStatus(s, now: Self.day(29)) == .active)
        #expect(SubscriptionModel.impliedStatus(s, now: Self.day(31)) == .expired)
        s.inBillingRetry = true
        s.gracePeriodExpiresAt = Self.day(36)
        #expect(SubscriptionModel.impliedStatus(s, now: Self.day(31)) == .gracePeriod)
        #expect(SubscriptionModel.impliedStatus(s, now: Self.day(37)) == .billingRetry)
    }

    @Test func withoutCatalogLevelsTheSubtypeOrTheTimingNamesTheKind() throws {
        let plain = SubscriptionModel()
        let start = plain.apply(Self.fact("SUBSCRIBED", "INITIAL_BUY", at: 0, tx: Self.tx("1000", "a", from: 0, renewal: false), status: 1),
                                to: nil, now: Self.day(0))!.subscription
        let up = try #require(plain.apply(Self.fact("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: 3,
                                                    tx: Self.tx("1001", "b", from: 3, renewal: false), status: 1), to: start, now: Self.day(3)))
        #expect(up.changes == [.productChanged(from: "a", to: "b", kind: .upgrade, effective: .immediate)])
        let renewedInto = try #require(plain.apply(Self.fact("DID_RENEW", at: 30, tx: Self.tx("1002", "c", from: 30), status: 1),
                                                   to: start, now: Self.day(30)))
        #expect(renewedInto.changes.first == .productChanged(from: "a", to: "c", kind: .downgrade, effective: .atRenewal))
    }

    @Test func aSubscriptionFirstSeenMidLifeIsIntroducedAsWhereItStands() throws {
        let renewal = Self.fact("DID_RENEW", at: 60, tx: Self.tx("1002", from: 60), status: 1)
        #expect(try #require(Self.model.apply(renewal, to: nil, now: Self.day(60))).changes.map(\.name) == ["renewed"])
        let expired = SubscriptionFact(source: .history, originalTransactionID: "1000", environment: "Production", signedAt: Self.day(100),
                                       transaction: Self.tx("1000", from: 0, renewal: false), renewal: Self.renewal(false, intent: 1))
        let step = try #require(Self.model.apply(expired, to: nil, now: Self.day(100)))
        #expect(step.subscription.status == .expired)
        #expect(step.changes == [.expired(reason: .voluntary)])
    }

    @Test func everySubscriptionEventTypeIsProducedBySomeTransition() {
        var produced: Set<EventType> = []
        for row in Self.rows {
            for change in Self.model.apply(row.fact, to: row.from(), now: row.fact.signedAt)?.changes ?? [] {
                produced.insert(change.eventType)
            }
        }
        #expect(SubscriptionChange.eventTypes.count == 18)
        #expect(Set(SubscriptionChange.eventTypes).subtracting(produced).map(\.rawValue).sorted() == [])
    }
}
