import Foundation

/// One transaction of a history page, verified by the worker: what the ledger needs to queue it
/// for its owner, and the subscription fact it states (nil for a one-time purchase).
public struct HistoryTransaction: Sendable, Hashable {
    /// Apple's JWS, verified: queued as a signed-transaction job (verified again there, then
    /// recorded by RecordPurchases).
    public var signedTransaction: String
    public var transactionID: String
    public var originalTransactionID: String
    /// Apple-signed: names the order (and so the owner) when the app set it.
    public var appAccountToken: UUID?
    public var webOrderLineItemID: String?
    /// When Apple signed the page: orders this transaction's revocation state against
    /// notifications' (the later signature wins).
    public var signedAt: Date
    /// Refunded or revoked, as Apple says now: the grants are revoked; nil: the grants stand (a
    /// revocation signed before this page is reversed — Apple reversed the refund).
    public var revocation: Revocation?
    public var subscription: SubscriptionFact?

    public init(signedTransaction: String, transactionID: String, originalTransactionID: String, appAccountToken: UUID?,
                webOrderLineItemID: String?, signedAt: Date, revocation: Revocation?, subscription: SubscriptionFact?) {
        self.signedTransaction = signedTransaction
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.appAccountToken = appAccountToken
        self.webOrderLineItemID = webOrderLineItemID
        self.signedAt = signedAt
        self.revocation = revocation
        self.subscription = subscription
    }
}
