import Foundation

/// What applying one notification does to the ledger: decided by the worker's pure
/// `NotificationPlan` from Apple's verified payload, carried out by `ApplyNotification` in one
/// transaction. Every action is idempotent, and one signed before the state it would change is
/// ignored, so a notification applied twice, or late, changes nothing more.
public enum NotificationAction: Sendable, Hashable {
    /// Apple refunded the transaction, or revoked it (family sharing ended): its grant is revoked
    /// (the row stays), and a purchase not granted yet will be `not_paid` when it arrives.
    case revoke(Revocation)
    /// Apple reversed a refund: the grant counts again.
    case reinstate(transactionID: String, originalTransactionID: String?, webOrderLineItemID: String?)
    /// A purchase Apple reports (a renewal's new period, a new subscription, a one-time charge):
    /// its signed transaction goes into the queue for the purchase's user — the user of its earlier
    /// periods, or the order carrying its appAccountToken — and is granted there like any other.
    case grant(ReportedPurchase)
    /// A subscription's state between renewals.
    case subscriptionStatus(SubscriptionState)
    /// Apple asks about a refund request; answered by the worker within `deadline`, with consent.
    case consumptionRequest(transactionID: String, reason: String?, deadline: Date)
    /// A parent withdrew consent for the customer's use of the app (RESCIND_CONSENT): a
    /// `consent.rescinded` event for the Apple Account Apple names by its app transaction id
    /// (Apple does not say which of your users it is; the app knows its AppTransaction).
    case consentRescinded(appTransactionID: String)
    /// Nothing changes in the ledger; `note` says what was recorded (kept with its payload).
    case record(note: String)
}

public struct Revocation: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String?
    /// A subscription period's id: the period's grant is the one revoked.
    public var webOrderLineItemID: String?
    /// Apple's `revocationDate` (nil: when applied).
    public var revokedAt: Date?
    /// What the ledger records, e.g. `refund (app issue)`, `family sharing ended`.
    public var reason: String
    /// Apple's `revocationReason`: 0 other, 1 an issue in the app.
    public var revocationReason: Int?

    public init(transactionID: String, originalTransactionID: String?, webOrderLineItemID: String?, revokedAt: Date?,
                reason: String, revocationReason: Int?) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.revokedAt = revokedAt
        self.reason = reason
        self.revocationReason = revocationReason
    }
}

public struct ReportedPurchase: Sendable, Hashable {
    /// Apple's `signedTransactionInfo`, queued as a signed-transaction job (verified again there).
    public var signedTransaction: String
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String?
    public var appAccountToken: UUID?

    public init(signedTransaction: String, transactionID: String, originalTransactionID: String, productID: String?,
                appAccountToken: UUID?) {
        self.signedTransaction = signedTransaction
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.appAccountToken = appAccountToken
    }
}

public struct SubscriptionState: Sendable, Hashable {
    public var originalTransactionID: String
    public var productID: String?
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// 1 renews, 0 turned off.
    public var autoRenewStatus: Int?
    public var expiresDate: Date?
    public var gracePeriodExpiresDate: Date?

    public init(originalTransactionID: String, productID: String?, status: Int?, autoRenewStatus: Int?, expiresDate: Date?,
                gracePeriodExpiresDate: Date?) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.status = status
        self.autoRenewStatus = autoRenewStatus
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
    }
}
