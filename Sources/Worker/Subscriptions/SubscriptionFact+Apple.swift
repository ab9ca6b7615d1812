import AppleSignedData
import Foundation
import ReceiptQueue

extension SubscriptionFact {
    /// What a verified notification says about a subscription: its transaction, renewal info and
    /// status, signed at the notification's `signedDate`. Nil when it names no subscription (a
    /// one-time purchase, a consumption request, a summary).
    static func notification(_ notification: VerifiedNotification) -> SubscriptionFact? {
        let transaction = notification.transaction
        let renewal = notification.renewal
        guard transaction?.expiresDate != nil || renewal != nil,
              let original = transaction?.originalTransactionId ?? renewal?.originalTransactionId,
              let signedAt = notification.payload.signedAt ?? transaction?.signedAt ?? renewal?.signedAt else { return nil }
        return SubscriptionFact(
            source: .notification(type: notification.payload.notificationType ?? "", subtype: notification.payload.subtype),
            originalTransactionID: original, environment: notification.environment.rawValue, signedAt: signedAt,
            transaction: transaction.flatMap(SubscriptionTransaction.init(apple:)),
            renewal: renewal.map(SubscriptionRenewal.init(apple:)),
            status: notification.payload.data?.status)
    }
}

extension SubscriptionFact {
    /// What a verified signed transaction an app submitted (or Get Transaction Info answered for
    /// its id) says: its period, a `transaction` fact signed at its `signedDate` — an old JWS
    /// replayed later is older than what is known and changes nothing. Nil for anything but an
    /// auto-renewable subscription's period, or without a signing date. No renewal info: the API
    /// takes none from apps (`POST /v1/transactions` takes a transaction only).
    public static func transaction(_ transaction: TransactionPayload, environment: String) -> SubscriptionFact? {
        if let type = transaction.type, type != .autoRenewableSubscription { return nil }
        guard let period = SubscriptionTransaction(apple: transaction), let signedAt = transaction.signedAt else { return nil }
        return SubscriptionFact(source: .transaction, originalTransactionID: transaction.originalTransactionId ?? period.transactionID,
                                environment: environment, signedAt: signedAt, transaction: period)
    }
}

extension SubscriptionTransaction {
    /// A subscription period from Apple's signed transaction; nil for one without an id, a
    /// product or an expiry (not a subscription's).
    init?(apple t: TransactionPayload) {
        guard let id = t.transactionId, let product = t.productId, t.expiresDate != nil else { return nil }
        self.init(transactionID: id, webOrderLineItemID: t.webOrderLineItemId, productID: product, groupID: t.subscriptionGroupIdentifier,
                  purchasedAt: t.purchasedAt, expiresAt: t.expiresAt,
                  offer: SubscriptionOffer(appleType: t.offerType, id: t.offerIdentifier), isUpgraded: t.isUpgraded ?? false,
                  revokedAt: t.revokedAt, revocationReason: t.revokedAt == nil ? nil : t.revocationReason,
                  isRenewal: t.transactionReason == "RENEWAL", familyShared: t.inAppOwnershipType == .familyShared)
    }
}

extension SubscriptionRenewal {
    /// What happens at the period's end, from Apple's signed renewal info.
    init(apple r: RenewalInfoPayload) {
        self.init(autoRenew: r.autoRenewStatus.map { $0 == 1 }, renewsToProductID: r.autoRenewProductId,
                  expirationIntent: r.expirationIntent, inBillingRetry: r.isInBillingRetryPeriod,
                  gracePeriodExpiresAt: r.gracePeriodExpiresAt, priceIncreaseStatus: r.priceIncreaseStatus)
    }
}
