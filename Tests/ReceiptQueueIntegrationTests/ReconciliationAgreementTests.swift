import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Reconciliation has no state machine of its own: each subscription carries when it is next due
/// (`reconcile_at`). These check that the statements that move it agree with
/// `ReconciliationSchedule` and with the claim's promises: a claim takes only due subscriptions,
/// most overdue first, and moves them out by its lease; a record is fenced by that lease and
/// schedules the next check as `ReconciliationSchedule.next` says for the state it leaves; a change
/// a notification makes brings the check forward to within `afterChange`, and one a status check
/// makes does not.
@Suite("Reconciliation: the scheduling statements agree with ReconciliationSchedule")
struct ReconciliationAgreementTests {
    static let schedule = ReconciliationSchedule()
    static let day: TimeInterval = 86_400

    /// A subscription as a notification makes it: active until `expires` (days from now).
    static func subscribe(_ fixture: QueueFixture, _ original: String, expires: Double = 20) async throws {
        let now = Date()
        let period = SubscriptionTransaction(transactionID: original, webOrderLineItemID: "w" + original, productID: "com.example.pro",
                                             groupID: "g1", purchasedAt: now.addingTimeInterval(-10 * day),
                                             expiresAt: now.addingTimeInterval(expires * day), isRenewal: false)
        let fact = SubscriptionFact(source: .notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"), originalTransactionID: original,
                                    environment: "Production", signedAt: now.addingTimeInterval(-60), transaction: period)
        _ = try await fixture.pool.transaction { try ApplySubscriptionFact.run(fact, now: now, on: $0) }
    }

    /// Apple's status for `original`, as a status check reads it: `status` 1–5 and a renewal.
    static func statusCheck(_ original: String, status: Int, expires: Double, grace: Double? = nil) -> SubscriptionFact {
        let now = Date()
        let period = SubscriptionTransaction(transactionID: original, webOrderLineItemID: "w" + original, productID: "com.example.pro",
                                             groupID: "g1", purchasedAt: now.addingTimeInterval(-10 * day),
                                             expiresAt: now.addingTimeInterval(expires * day),
                                             revokedAt: status == 5 ? now.addingTimeInterval(-3600) : nil, revocationReason: status == 5 ? 0 : nil,
                                             isRenewal: false)
        return SubscriptionFact(source: .statusCheck, originalTransactionID: original, environment: "Production", signedAt: now,
                                transaction: period,
                                renewal: SubscriptionRenewal(autoRenew: status == 1 || status == 3 || status == 4, renewsToProductID: "com.example.pro",
                                                             expirationIntent: status == 2 ? 1 : nil, inBillingRetry: status == 3 || status == 4,
                                                             gracePeriodExpiresAt: grace.map { now.addingTimeInterval($0 * day) }),
                                status: status)
    }

    static func reconcileAt(_ fixture: QueueFixture, _ original: String) async throws -> Date? {
        try await fixture.pool.query("SELECT reconcile_at FROM receiptq.subscriptions WHERE original_transaction_id = $1", [original])[0]
            .decodeIfPresent("reconcile_at")
    }

    static func claim(_ fixture: QueueFixture, limit: Int = 100) async throws -> [ReconciliationLease] {
        try await fixture.pool.withConnection { try ClaimDueSubscriptions.run(limit: limit, lease: .seconds(60), on: $0) }
    }

    @Test func aClaimTakesOnlyDueSubscriptionsMostOverdueFirstAndMovesThemOutByItsLease() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        for (original, due) in [("overdue-2h", "-2 hours"), ("overdue-1m", "-1 minute"), ("overdue-1d", "-1 day"), ("later", "+1 hour")] {
            try await Self.subscribe(fixture, original)
            try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() + $2::interval WHERE original_transaction_id = $1",
                                         [original, due])
        }
        let first = try await Self.claim(fixture, limit: 1)
        #expect(first.map(\.originalTransactionID) == ["overdue-1d"])
        let rest = try await Self.claim(fixture)
        #expect(rest.map(\.originalTransactionID) == ["overdue-2h", "overdue-1m"])
        #expect(try await Self.claim(fixture).isEmpty, "claimed ones are not due again until their lease ends")
        for lease in first + rest {
            let stored = try #require(try await Self.reconcileAt(fixture, lease.originalTransactionID))
            #expect(abs(stored.timeIntervalSince(lease.leaseUntil)) < 0.001)
            #expect(abs(stored.timeIntervalSinceNow - 60) < 5, "moved out by the lease")
        }
        // `receiptq reconcile`: due now, and claimed next.
        let made = try await fixture.pool.withConnection { try ClaimDueSubscriptions.dueNow(originalTransactionID: "later", userID: nil, on: $0) }
        #expect(made == 1)
        #expect(try await Self.claim(fixture).map(\.originalTransactionID) == ["later"])
    }

    /// Apple's status in each state: the next check the record writes is `ReconciliationSchedule.next`
    /// of the state the subscription is left in.
    @Test func aRecordSchedulesTheNextCheckAsTheScheduleSaysForEveryState() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        // (status, expiry, grace period end) in days from now.
        let answers: [(Int, Double, Double?)] = [(1, 20, nil), (1, 2, nil), (2, -3, nil), (3, -1, nil), (4, -1, 0.1), (4, -1, 3), (5, 20, nil)]
        var reached: Set<String> = []
        for (index, (status, expires, grace)) in answers.enumerated() {
            let original = "s\(index)"
            try await Self.subscribe(fixture, original)
            try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() - interval '1 minute' WHERE original_transaction_id = $1",
                                         [original])
            let lease = try #require(try await Self.claim(fixture).first)
            let now = Date()
            let result = try await fixture.pool.transaction {
                try RecordReconciliation.run(lease, fact: Self.statusCheck(original, status: status, expires: expires, grace: grace),
                                             schedule: Self.schedule, now: now, on: $0)
            }
            #expect(result.recorded)
            let row = try await fixture.pool.query("""
                SELECT state, expires_date, grace_period_expires_date, reconcile_at FROM receiptq.subscriptions WHERE original_transaction_id = $1
                """, [original])[0]
            let state = try #require(SubscriptionStatus(rawValue: try row.decode("state", as: String.self)))
            reached.insert(state.rawValue)
            let expected = Self.schedule.next(state, expiresAt: try row.decodeIfPresent("expires_date"),
                                              gracePeriodExpiresAt: try row.decodeIfPresent("grace_period_expires_date"), now: now)
            let written: Date = try row.decode("reconcile_at")
            #expect(abs(written.timeIntervalSince(expected)) < 0.01, "status \(status) → \(state.rawValue): \(written), schedule says \(expected)")
        }
        #expect(reached == Set(SubscriptionStatus.allCases.map(\.rawValue)), "a status check left a subscription in every state: \(reached)")
    }

    @Test func withoutAnAnswerTheNextCheckIsAfterAFailure() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await Self.subscribe(fixture, "o1")
        try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() - interval '1 minute'")
        let lease = try #require(try await Self.claim(fixture).first)
        let now = Date()
        let result = try await fixture.pool.transaction { try RecordReconciliation.run(lease, fact: nil, schedule: Self.schedule, now: now, on: $0) }
        #expect(result.recorded && result.corrections.isEmpty)
        let written = try #require(try await Self.reconcileAt(fixture, "o1"))
        #expect(abs(written.timeIntervalSince(now.addingTimeInterval(Self.schedule.afterFailure))) < 0.01)
    }

    /// A check whose claim ended and was taken again writes nothing: the later claim's record wins.
    @Test func aRecordIsFencedByItsClaim() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await Self.subscribe(fixture, "o1")
        try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() - interval '1 minute'")
        let stale = try #require(try await Self.claim(fixture).first)
        try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() - interval '1 second'")   // its lease ran out
        let retaken = try #require(try await Self.claim(fixture).first)
        let late = try await fixture.pool.transaction {
            try RecordReconciliation.run(stale, fact: Self.statusCheck("o1", status: 5, expires: 20), schedule: Self.schedule, on: $0)
        }
        #expect(!late.recorded)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.subscriptions WHERE state = 'active'") == 1)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.subscription_corrections") == 0)
        let stored = try #require(try await Self.reconcileAt(fixture, "o1"))
        #expect(abs(stored.timeIntervalSince(retaken.leaseUntil)) < 0.001, "the retaken claim's lease stands")
    }

    /// `subscriptions_schedule_reconciliation`: a new subscription, or a change a notification made, is
    /// due within `afterChange`; a change a status check made keeps the schedule's own next check.
    @Test func aNotificationsChangeBringsTheCheckForwardAndAStatusChecksDoesNot() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await Self.subscribe(fixture, "o1")
        let new = try #require(try await Self.reconcileAt(fixture, "o1"))
        #expect(new.timeIntervalSinceNow <= Self.schedule.afterChange + 1)
        // A status check that changes the model (auto-renew off) schedules by the schedule: the period's end, not within the hour.
        try await fixture.pool.query("UPDATE receiptq.subscriptions SET reconcile_at = now() - interval '1 minute'")
        let lease = try #require(try await Self.claim(fixture).first)
        var autoRenewOff = Self.statusCheck("o1", status: 1, expires: 20)
        autoRenewOff.renewal?.autoRenew = false
        let fact = autoRenewOff
        let checked = try await fixture.pool.transaction { try RecordReconciliation.run(lease, fact: fact, schedule: Self.schedule, on: $0) }
        #expect(!checked.changes.isEmpty, "the status check changed the model")
        let scheduled = try #require(try await Self.reconcileAt(fixture, "o1"))
        #expect(scheduled.timeIntervalSinceNow > Self.schedule.afterChange + 60)
        // A notification that changes it (auto-renew back on) brings the check forward.
        let renewal = SubscriptionRenewal(autoRenew: true, renewsToProductID: "com.example.pro")
        let notification = SubscriptionFact(source: .notification(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED"),
                                            originalTransactionID: "o1", environment: "Production", signedAt: Date(), renewal: renewal)
        _ = try await fixture.pool.transaction { try ApplySubscriptionFact.run(notification, now: Date(), on: $0) }
        let forward = try #require(try await Self.reconcileAt(fixture, "o1"))
        #expect(forward.timeIntervalSinceNow <= Self.schedule.afterChange + 1)
    }
}
