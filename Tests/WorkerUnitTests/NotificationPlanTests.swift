import AppleSignedData
import Foundation
import ReceiptQueue
import Testing
import Worker

/// What each App Store Server Notification does to the ledger, by type: a table of Apple's types
/// and the actions planned for them. Pure: no signature, no database.
@Suite("Notification plan: Apple's notification types and what they change")
struct NotificationPlanTests {
    static let signed = Date(timeIntervalSince1970: 1_800_000_000)

    static func transaction(id: String = "2000000001", original: String = "2000000000", expires: Date? = nil,
                            revocationReason: Int? = nil, revoked: Date? = nil, token: UUID? = nil) -> TransactionPayload {
        var transaction = TransactionPayload()
        transaction.transactionId = id
        transaction.originalTransactionId = original
        transaction.productId = "com.example.product"
        transaction.webOrderLineItemId = expires == nil ? nil : "woli-\(id)"
        transaction.expiresDate = expires.map { Int64($0.timeIntervalSince1970 * 1000) }
        transaction.revocationReason = revocationReason
        transaction.revocationDate = revoked.map { Int64($0.timeIntervalSince1970 * 1000) }
        transaction.appAccountToken = token
        return transaction
    }

    static func notification(_ type: String, _ transaction: TransactionPayload? = transaction(), renewal: RenewalInfoPayload? = nil,
                             status: Int? = nil, reason: String? = nil) -> VerifiedNotification {
        var payload = NotificationPayload()
        payload.notificationType = type
        payload.notificationUUID = UUID().uuidString
        payload.signedDate = Int64(signed.timeIntervalSince1970 * 1000)
        var data = NotificationData()
        data.signedTransactionInfo = transaction == nil ? nil : "jws-of-\(transaction?.transactionId ?? "")"
        data.status = status
        data.consumptionRequestReason = reason
        payload.data = data
        return VerifiedNotification(payload: payload, environment: .production, transaction: transaction,
                                    signedTransactionInfo: data.signedTransactionInfo, renewal: renewal)
    }

    @Test("REFUND revokes the transaction with Apple's reason and date; the row stays in the ledger")
    func refund() {
        let revoked = Self.signed.addingTimeInterval(-60)
        for (reason, text) in [(0, "refunded by Apple"), (1, "refunded by Apple (an issue in the app)"), (nil as Int?, "refunded by Apple")] {
            let plan = NotificationPlan.plan(Self.notification("REFUND", Self.transaction(revocationReason: reason, revoked: revoked)))
            #expect(plan == .apply([.revoke(Revocation(transactionID: "2000000001", originalTransactionID: "2000000000",
                                                       webOrderLineItemID: nil, revokedAt: revoked, reason: text,
                                                       revocationReason: reason))]))
        }
    }

    @Test("REVOKE (family sharing ended) revokes; REFUND_REVERSED reinstates; REFUND_DECLINED and TEST change nothing")
    func revokeReverseDecline() {
        guard case .apply(let revoke) = NotificationPlan.plan(Self.notification("REVOKE")),
              case .revoke(let revocation) = revoke.first else { Issue.record("REVOKE planned no revocation"); return }
        #expect(revocation.reason == "family sharing ended or revoked by Apple")
        #expect(NotificationPlan.plan(Self.notification("REFUND_REVERSED"))
            == .apply([.reinstate(transactionID: "2000000001", originalTransactionID: "2000000000", webOrderLineItemID: nil)]))
        #expect(NotificationPlan.plan(Self.notification("REFUND_DECLINED")) == .apply([]))
        #expect(NotificationPlan.plan(Self.notification("TEST", nil)) == .apply([]))
    }

    @Test("a subscription period's refund names its period, so the period's grant is the one revoked")
    func periodRefund() {
        let plan = NotificationPlan.plan(Self.notification("REFUND", Self.transaction(expires: Self.signed.addingTimeInterval(86_400))))
        guard case .apply(let actions) = plan, case .revoke(let revocation) = actions.first else { Issue.record("\(plan)"); return }
        #expect(revocation.webOrderLineItemID == "woli-2000000001")
    }

    @Test("purchases Apple reports are queued as their signed transaction; a subscription's fact goes to its model beside")
    func purchases() {
        let token = UUID()
        for type in ["SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED", "RENEWAL_EXTENDED"] {
            let expires = Self.signed.addingTimeInterval(30 * 86_400)
            var renewal = RenewalInfoPayload()
            renewal.autoRenewStatus = 1
            renewal.originalTransactionId = "2000000000"
            let plan = NotificationPlan.plan(Self.notification(type, Self.transaction(expires: expires, token: token), renewal: renewal, status: 1))
            #expect(plan == .apply([
                .grant(ReportedPurchase(signedTransaction: "jws-of-2000000001", transactionID: "2000000001",
                                        originalTransactionID: "2000000000", productID: "com.example.product", appAccountToken: token)),
                .subscription(SubscriptionFact(
                    source: .notification(type: type, subtype: nil), originalTransactionID: "2000000000", environment: "Production",
                    signedAt: Self.signed,
                    transaction: SubscriptionTransaction(transactionID: "2000000001", webOrderLineItemID: "woli-2000000001",
                                                         productID: "com.example.product", purchasedAt: nil, expiresAt: expires,
                                                         isRenewal: false),
                    renewal: SubscriptionRenewal(autoRenew: true, renewsToProductID: nil), status: 1)),
            ]), "\(type)")
        }
        // A one-time charge is a purchase with no subscription state.
        #expect(NotificationPlan.plan(Self.notification("ONE_TIME_CHARGE")) == .apply([
            .grant(ReportedPurchase(signedTransaction: "jws-of-2000000001", transactionID: "2000000001",
                                    originalTransactionID: "2000000000", productID: "com.example.product", appAccountToken: nil)),
        ]))
    }

    @Test("expiry, billing retry, grace period, renewal changes and price increases go to the subscription's model as Apple signed them")
    func subscriptionStates() {
        let expires = Self.signed.addingTimeInterval(-3600)
        let grace = Self.signed.addingTimeInterval(6 * 86_400)
        var renewal = RenewalInfoPayload()
        renewal.autoRenewStatus = 0
        renewal.gracePeriodExpiresDate = Int64(grace.timeIntervalSince1970 * 1000)
        for type in ["EXPIRED", "GRACE_PERIOD_EXPIRED", "DID_FAIL_TO_RENEW", "DID_CHANGE_RENEWAL_STATUS", "DID_CHANGE_RENEWAL_PREF",
                     "PRICE_INCREASE", "RENEWAL_EXTENSION"] {
            #expect(NotificationPlan.plan(Self.notification(type, Self.transaction(expires: expires), renewal: renewal, status: 4)) == .apply([
                .subscription(SubscriptionFact(
                    source: .notification(type: type, subtype: nil), originalTransactionID: "2000000000", environment: "Production",
                    signedAt: Self.signed,
                    transaction: SubscriptionTransaction(transactionID: "2000000001", webOrderLineItemID: "woli-2000000001",
                                                         productID: "com.example.product", purchasedAt: nil, expiresAt: expires,
                                                         isRenewal: false),
                    renewal: SubscriptionRenewal(autoRenew: false, renewsToProductID: nil, gracePeriodExpiresAt: grace), status: 4)),
            ]), "\(type)")
        }
    }

    @Test("an upgrade's notification carries the new product's period: it is granted, a downgrade's is not")
    func upgradeGrantsTheNewPeriod() {
        var upgrade = Self.notification("DID_CHANGE_RENEWAL_PREF", Self.transaction(expires: Self.signed.addingTimeInterval(86_400)))
        upgrade.payload.subtype = "UPGRADE"
        var downgrade = upgrade
        downgrade.payload.subtype = "DOWNGRADE"
        guard case .apply(let upgraded) = NotificationPlan.plan(upgrade), case .apply(let downgraded) = NotificationPlan.plan(downgrade) else {
            Issue.record("not applied")
            return
        }
        #expect(upgraded.contains { if case .grant = $0 { true } else { false } })
        #expect(upgraded.contains { if case .subscription = $0 { true } else { false } })
        #expect(!downgraded.contains { if case .grant = $0 { true } else { false } })
    }

    @Test("CONSUMPTION_REQUEST is due 12 hours after Apple signed it")
    func consumptionRequest() {
        #expect(NotificationPlan.plan(Self.notification("CONSUMPTION_REQUEST", reason: "UNINTENDED_PURCHASE")) == .apply([
            .consumptionRequest(transactionID: "2000000001", reason: "UNINTENDED_PURCHASE", deadline: Self.signed.addingTimeInterval(12 * 3600)),
        ]))
    }

    @Test("a type this version does not know is recorded, never a failure: Apple adds types")
    func unknownType() {
        #expect(NotificationPlan.plan(Self.notification("SOMETHING_APPLE_ADDS_IN_2027")) == .apply([]))
        #expect(NotificationPlan.plan(Self.notification("METADATA_UPDATE")) == .apply([]))
    }

    @Test("a notification that must name a transaction and does not is failed with a reason, never guessed")
    func missingTransaction() {
        for type in ["REFUND", "REVOKE", "REFUND_REVERSED", "DID_RENEW", "ONE_TIME_CHARGE", "EXPIRED", "CONSUMPTION_REQUEST"] {
            guard case .fail(let reason) = NotificationPlan.plan(Self.notification(type, nil)) else {
                Issue.record("\(type) without a transaction was not failed")
                continue
            }
            #expect(reason.contains(type))
        }
    }

    @Test("a failed application is retried with doubling delays up to the cap, then given up")
    func retryPolicy() {
        let policy = NotificationRetryPolicy(initialDelay: .seconds(5), maxDelay: .seconds(60), maxAttempts: 6)
        #expect((1...6).map { policy.delay(after: $0) } == [.seconds(5), .seconds(10), .seconds(20), .seconds(40), .seconds(60), nil])
    }
}
