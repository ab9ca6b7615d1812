import AppStore
import Foundation
import ReceiptQueue

extension SubscriptionFact {
    /// What a verified receipt says about each auto-renewable subscription it holds: one `receipt`
    /// fact per original transaction, with its current period and its renewal. Pure, table-tested
    /// (`ReceiptSubscriptionFactsTests`). Empty for a receipt without a subscription period.
    ///
    /// - The periods are Apple's server copy (`latest_receipt_info`), with the device's copy
    ///   (`in_app`) for any it lacks; a period is an entry with an expiry.
    /// - The current period is the latest by purchase date that was not upgraded away, as the model
    ///   reads it; older periods are not sent: the model would ignore them (it never moves a
    ///   period back), and each would cost the writing transaction its statements.
    /// - It is a renewal unless it is the original transaction or the period before it was
    ///   upgraded away (an upgrade is bought at once). A receipt does not say more: a resubscription
    ///   it alone reports reads as a renewal (its notification, `SUBSCRIBED` `RESUBSCRIBE`, says
    ///   otherwise, and is signed later).
    /// - The renewal is the `pending_renewal_info` entry of the same original transaction.
    /// - Signed at the receipt's creation (`receipt_creation_date_ms`; else, for a receipt
    ///   without one, the latest purchase it holds, which it was made after). Apple's answer may be
    ///   fresher than that (verifyReceipt answers its server copy), but nothing in it says which
    ///   parts are: dated at the latest moment it is certainly true, an old receipt replayed later
    ///   never overrides a notification or status check signed after it was made. A receipt with
    ///   neither date says nothing.
    public static func receipt(_ response: VerifyReceiptResponse, environment: String) -> [SubscriptionFact] {
        let server = response.latestReceiptInfo.filter(\.isSubscriptionPeriod)
        let known = Set(server.map(\.transactionID))
        let device = (response.receipt?.inApp ?? []).filter { $0.isSubscriptionPeriod && !known.contains($0.transactionID) }
        let periods = server + device
        guard !periods.isEmpty, let signedAt = receiptSignedAt(response) else { return [] }
        var originals: [String] = []
        var byOriginal: [String: [InAppTransaction]] = [:]
        for period in periods {
            if byOriginal[period.originalTransactionID] == nil { originals.append(period.originalTransactionID) }
            byOriginal[period.originalTransactionID, default: []].append(period)
        }
        return originals.compactMap { original in
            let ordered = byOriginal[original, default: []].sorted { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }
            guard let at = ordered.lastIndex(where: { $0.isUpgraded != true }) else { return nil }
            let current = ordered[at]
            let upgrade = at > 0 && ordered[at - 1].isUpgraded == true
            let pending = response.pendingRenewalInfo.first { $0.originalTransactionID == original }
                ?? response.pendingRenewalInfo.first { $0.originalTransactionID == nil && $0.productID == current.productID }
            return SubscriptionFact(
                source: .receipt, originalTransactionID: original, environment: environment, signedAt: signedAt,
                transaction: SubscriptionTransaction(receipt: current, isRenewal: current.transactionID != original && !upgrade),
                renewal: pending.map(SubscriptionRenewal.init(receipt:)))
        }
    }

    /// The receipt's creation, else the latest purchase it holds (it was made after it).
    static func receiptSignedAt(_ response: VerifyReceiptResponse) -> Date? {
        let ms = response.receipt?.receiptCreationDateMs ?? response.receipt?.inApp.compactMap(\.purchaseDateMs).max()
        return ms.map { Date(timeIntervalSince1970: Double($0) / 1_000) }
    }
}

extension InAppTransaction {
    /// An auto-renewable subscription's period: it has an id, a product and an expiry.
    var isSubscriptionPeriod: Bool {
        expiresDateMs != nil && !transactionID.isEmpty && !productID.isEmpty
    }
}

extension SubscriptionTransaction {
    /// A period as a receipt lists it.
    init(receipt t: InAppTransaction, isRenewal: Bool) {
        let offer: SubscriptionOffer?
        if let code = t.offerCodeRefName {
            offer = SubscriptionOffer(kind: .offerCode, id: code)
        } else if let promotional = t.promotionalOfferID {
            offer = SubscriptionOffer(kind: .promotional, id: promotional)
        } else if t.isTrialPeriod == true || t.isInIntroOfferPeriod == true {
            offer = SubscriptionOffer(kind: .introductory, id: nil)
        } else {
            offer = nil
        }
        let revokedAt = t.cancellationDateMs.map { Date(timeIntervalSince1970: Double($0) / 1_000) }
        self.init(transactionID: t.transactionID, webOrderLineItemID: t.webOrderLineItemID, productID: t.productID,
                  groupID: t.subscriptionGroupIdentifier, purchasedAt: t.purchaseDate, expiresAt: t.expiresDate, offer: offer,
                  isUpgraded: t.isUpgraded ?? false, revokedAt: revokedAt,
                  revocationReason: revokedAt == nil ? nil : t.cancellationReason.flatMap { Int($0) },
                  isRenewal: isRenewal, familyShared: t.inAppOwnershipType == "FAMILY_SHARED")
    }
}

extension SubscriptionRenewal {
    /// What happens at the period's end, from a receipt's `pending_renewal_info` entry.
    init(receipt p: PendingRenewalInfo) {
        self.init(autoRenew: p.autoRenewStatus, renewsToProductID: p.autoRenewProductID,
                  expirationIntent: p.expirationIntent.flatMap { Int($0) }, inBillingRetry: p.isInBillingRetryPeriod,
                  gracePeriodExpiresAt: p.gracePeriodExpiresDateMs.map { Date(timeIntervalSince1970: Double($0) / 1_000) },
                  priceIncreaseStatus: p.priceIncreaseStatus)
    }
}
