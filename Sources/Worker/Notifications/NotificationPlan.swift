import AppleSignedData
import Foundation
import ReceiptQueue

/// What a verified App Store Server Notification does to the ledger. Pure: the same notification
/// always plans the same actions; `ApplyNotification` carries them out (idempotently, ignoring
/// anything signed before the state it would change).
///
/// The rules, by Apple's `notificationType`:
/// - `REFUND` → the transaction is revoked (its grant, or its subscription period's, keeps its row
///   with `revoked_at` and the reason; a purchase not granted yet will be `not_paid`);
///   `REVOKE` (family sharing ended, or Apple revoked it) → likewise;
///   `REFUND_REVERSED` → reinstated; `REFUND_DECLINED` → recorded only.
/// - `SUBSCRIBED`, `DID_RENEW`, `OFFER_REDEEMED`, `ONE_TIME_CHARGE`, `RENEWAL_EXTENDED` → the
///   signed transaction Apple reports is queued for the purchase's user and granted there like
///   any other (one grant per period: the ledger's keys make a repeat `already_granted`); for a
///   subscription, its state is recorded too.
/// - `EXPIRED`, `GRACE_PERIOD_EXPIRED`, `DID_FAIL_TO_RENEW`, `DID_CHANGE_RENEWAL_STATUS`,
///   `DID_CHANGE_RENEWAL_PREF`, `PRICE_INCREASE`, `RENEWAL_EXTENSION` → the subscription's state.
/// - `CONSUMPTION_REQUEST` → a request to answer with Send Consumption Information within 12 h
///   of Apple's `signedDate` (only with the customer's consent; never after the deadline).
/// - `RESCIND_CONSENT` (a parent withdrew consent: Apple's age assurance) → a `consent.rescinded`
///   event for the Apple Account its signed app transaction names.
/// - `EXTERNAL_PURCHASE_TOKEN`, `RENEWAL_EXTENSION` `SUMMARY` → recorded with what they say.
/// - `REFUND_DECLINED`, `TEST`, `METADATA_UPDATE`, `MIGRATION`, `PRICE_CHANGE` and any type this
///   version does not know → recorded only: an unknown type is never a failure (Apple adds
///   types), and it is kept with its signed payload for a later version.
public enum NotificationPlan {
    public enum Outcome: Sendable, Hashable {
        case apply([NotificationAction])
        /// The notification cannot be applied as it is (e.g. a refund without its transaction):
        /// it is kept `failed` with this reason, visible to ops and re-drivable.
        case fail(String)
    }

    /// Apple's window for answering a CONSUMPTION_REQUEST.
    public static let consumptionWindow: TimeInterval = 12 * 3600

    static let purchases: Set<String> = ["SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED", "ONE_TIME_CHARGE", "RENEWAL_EXTENDED"]
    static let subscriptionStates: Set<String> = ["EXPIRED", "GRACE_PERIOD_EXPIRED", "DID_FAIL_TO_RENEW", "DID_CHANGE_RENEWAL_STATUS",
                                                  "DID_CHANGE_RENEWAL_PREF", "PRICE_INCREASE", "RENEWAL_EXTENSION"]

    public static func plan(_ notification: VerifiedNotification) -> Outcome {
        let type = notification.payload.notificationType ?? ""
        let transaction = notification.transaction
        switch type {
        case "RENEWAL_EXTENSION" where notification.payload.subtype == "SUMMARY":
            let summary = notification.payload.summary
            return .apply([.record(note: "renewal date extension \(summary?.requestIdentifier?.prefix(64) ?? "?") for \(summary?.productId?.prefix(100) ?? "?"): "
                + "\(summary?.succeededCount ?? 0) extended, \(summary?.failedCount ?? 0) not (each subscriber's own RENEWAL_EXTENDED changes its state)")])
        case "REFUND", "REVOKE":
            guard let transaction, let id = transaction.transactionId else { return .fail("\(type) without a signed transaction") }
            let reason = type == "REVOKE" ? "family sharing ended or revoked by Apple" : refundReason(transaction.revocationReason)
            return .apply([.revoke(Revocation(
                transactionID: id, originalTransactionID: transaction.originalTransactionId,
                webOrderLineItemID: transaction.webOrderLineItemId, revokedAt: transaction.revokedAt,
                reason: reason, revocationReason: transaction.revocationReason))])
        case "REFUND_REVERSED":
            guard let transaction, let id = transaction.transactionId else { return .fail("\(type) without a signed transaction") }
            return .apply([.reinstate(transactionID: id, originalTransactionID: transaction.originalTransactionId,
                                      webOrderLineItemID: transaction.webOrderLineItemId)])
        case _ where purchases.contains(type):
            guard let transaction, let jws = notification.signedTransactionInfo, let id = transaction.transactionId else {
                return .fail("\(type) without a signed transaction")
            }
            var actions: [NotificationAction] = [.grant(ReportedPurchase(
                signedTransaction: jws, transactionID: id, originalTransactionID: transaction.originalTransactionId ?? id,
                productID: transaction.productId, appAccountToken: transaction.appAccountToken))]
            if let state = subscriptionState(notification) { actions.append(.subscriptionStatus(state)) }
            return .apply(actions)
        case _ where subscriptionStates.contains(type):
            guard let state = subscriptionState(notification) else { return .fail("\(type) without a subscription's transaction") }
            return .apply([.subscriptionStatus(state)])
        case "EXTERNAL_PURCHASE_TOKEN":
            let id = notification.payload.externalPurchaseToken?.externalPurchaseId ?? "?"
            return .apply([.record(note: "external purchase token \(id.prefix(80)) recorded: ReceiptQueue grants App Store purchases; "
                + "report External Purchases to Apple from the server that sold them")])
        case "RESCIND_CONSENT":
            guard let app = notification.appTransaction?.appTransactionId else { return .fail("\(type) without a signed app transaction") }
            return .apply([.consentRescinded(appTransactionID: app)])
        case "CONSUMPTION_REQUEST":
            guard let id = transaction?.transactionId else { return .fail("\(type) without a signed transaction") }
            guard let signed = notification.payload.signedAt else { return .fail("\(type) without signedDate") }
            return .apply([.consumptionRequest(transactionID: id, reason: notification.payload.data?.consumptionRequestReason,
                                               deadline: signed.addingTimeInterval(consumptionWindow))])
        default:
            // REFUND_DECLINED, TEST, METADATA_UPDATE, MIGRATION, PRICE_CHANGE (Advanced Commerce), and types to come.
            return .apply([])
        }
    }

    /// A subscription's state from the notification's transaction, renewal info and status;
    /// nil when the notification names no subscription.
    static func subscriptionState(_ notification: VerifiedNotification) -> SubscriptionState? {
        let transaction = notification.transaction
        let renewal = notification.renewal
        guard transaction?.expiresDate != nil || renewal != nil,
              let original = transaction?.originalTransactionId ?? renewal?.originalTransactionId else { return nil }
        return SubscriptionState(
            originalTransactionID: original, productID: transaction?.productId ?? renewal?.productId,
            status: notification.payload.data?.status, autoRenewStatus: renewal?.autoRenewStatus,
            expiresDate: transaction?.expiresAt, gracePeriodExpiresDate: renewal?.gracePeriodExpiresAt)
    }

    /// What the ledger says of a refund, from Apple's `revocationReason`.
    static func refundReason(_ revocationReason: Int?) -> String {
        switch revocationReason {
        case 1: "refunded by Apple (an issue in the app)"
        default: "refunded by Apple"
        }
    }
}
