import Foundation

/// Reads one fact Apple signed into a subscription and says what changed: the new snapshot, the
/// changes a backend sees (`SubscriptionChange`) and, for a status check or a history sync, the
/// fields it found different from what notifications had said. Pure, with the clock injected:
/// `ApplySubscriptionFact` carries the answer out in one transaction.
///
/// The rules:
/// - The current period is the transaction with the latest purchase date that was not upgraded
///   away. An older period (a history page, a restore) never moves it back; the same transaction
///   signed later may (an extension, a refund, a refund reversed).
/// - Renewal info signed before the one kept is ignored; so is a status signed before the last
///   status Apple stated.
/// - The status is Apple's when the fact states it; else it follows from the period and renewal
///   info at `now` (revoked; in the period: active; after it, in billing retry: grace period or
///   billing retry; else expired).
/// - A product change in a new period is immediate for a purchase (an upgrade or a crossgrade
///   bought now) and at renewal for a renewal into another product. Its kind comes from the
///   catalog's levels when both products have one, else Apple's subtype, else its timing.
public struct SubscriptionModel: Sendable {
    /// Apple's level of service per product within its group (1 is the highest), from the catalog.
    public var levels: [String: Int]

    public init(levels: [String: Int] = [:]) {
        self.levels = levels
    }

    public struct Step: Sendable, Hashable {
        public var subscription: Subscription
        public var changes: [SubscriptionChange]
        /// A status check or history sync that found the subscription other than known: the
        /// fields it corrected (`status`, `product_id`, `expires_at`, `auto_renew`,
        /// `renews_to_product_id`, `revoked_at`). Empty for notifications and submissions.
        public var corrections: [String]
        /// False when the fact changed nothing (a repeat, or older than what is known).
        public var changed: Bool
    }

    /// Nil when the fact cannot start a subscription (no transaction, nothing known yet).
    public func apply(_ fact: SubscriptionFact, to current: Subscription?, now: Date) -> Step? {
        guard let before = current else { return introduce(fact, now: now) }
        var s = before
        var changes: [SubscriptionChange] = []
        var periodMoved = false

        if let tx = fact.transaction, !tx.isUpgraded {
            if tx.transactionID == s.transactionID {
                if fact.signedAt >= s.transactionSignedAt {
                    if tx.revokedAt == nil, let to = tx.expiresAt, let from = s.expiresAt, to > from {
                        changes.append(.extended(from: from, to: to))
                    }
                    changes += revocationChanges(tx, fact: fact, wasRevoked: s.revokedAt != nil)
                    periodMoved = s.expiresAt != tx.expiresAt || s.revokedAt != tx.revokedAt
                    adopt(tx, fact: fact, into: &s)
                }
            } else if isLater(tx, than: s, signedAt: fact.signedAt) {
                changes += newPeriodChanges(tx, fact: fact, before: s)
                changes += revocationChanges(tx, fact: fact, wasRevoked: false)
                let oldProduct = s.productID
                adopt(tx, fact: fact, into: &s)
                if s.renewsToProductID == oldProduct { s.renewsToProductID = tx.productID }
                s.inBillingRetry = false
                s.gracePeriodExpiresAt = nil
                s.expirationReason = nil
                periodMoved = true
            }
        }

        var renewalMoved = false
        if let renewal = fact.renewal, fact.signedAt >= (s.renewalSignedAt ?? .distantPast) {
            changes += renewalChanges(renewal, fact: fact, subscription: s)
            adopt(renewal, signedAt: fact.signedAt, into: &s)
            renewalMoved = true
        }

        let statusBefore = before.status
        settleStatus(fact, into: &s, derive: periodMoved || renewalMoved, now: now)
        changes += statusChanges(from: statusBefore, to: s, fact: fact, periodMoved: periodMoved, already: changes)
        // An expiry or a resubscription says it all: auto-renew's flip with it is not news.
        if changes.contains(where: { $0.name == "expired" }) { changes.removeAll { $0.name == "auto_renew_disabled" } }
        if changes.contains(where: { $0.name == "resubscribed" }) { changes.removeAll { $0.name == "auto_renew_enabled" } }

        return Step(subscription: s, changes: changes, corrections: corrections(before, s, source: fact.source), changed: s != before)
    }

    /// What a backend is told when it first learns of a subscription — at its first fact, or when
    /// its user becomes known after facts arrived without one: one change naming where it stands.
    public func introduction(of s: Subscription) -> [SubscriptionChange] {
        switch s.status {
        case .active:
            return [s.transactionID == s.originalTransactionID
                ? .purchased(productID: s.productID, offer: s.offer)
                : .renewed(productID: s.productID, expiresAt: s.expiresAt, billingRecovered: false, offer: s.offer)]
        case .gracePeriod: return [.billingIssue(gracePeriodExpiresAt: s.gracePeriodExpiresAt), .gracePeriodStarted(expiresAt: s.gracePeriodExpiresAt)]
        case .billingRetry: return [.billingIssue(gracePeriodExpiresAt: nil)]
        case .expired: return [.expired(reason: s.expirationReason)]
        case .revoked:
            let reason = s.revocationReason ?? "revoked by Apple"
            return [reason == Self.familyRevocation ? .revoked(reason: reason) : .refunded(reason: reason)]
        }
    }

    // MARK: - The first fact

    func introduce(_ fact: SubscriptionFact, now: Date) -> Step? {
        guard let tx = fact.transaction else { return nil }
        var s = Subscription(originalTransactionID: fact.originalTransactionID, environment: fact.environment, groupID: tx.groupID,
                             productID: tx.productID, transactionID: tx.transactionID, transactionSignedAt: fact.signedAt)
        adopt(tx, fact: fact, into: &s)
        if tx.isUpgraded {
            // Only an upgraded-away period is known: not the current one; wait for a later fact.
            return nil
        }
        if let renewal = fact.renewal { adopt(renewal, signedAt: fact.signedAt, into: &s) }
        s.renewsToProductID = s.renewsToProductID ?? tx.productID
        settleStatus(fact, into: &s, derive: true, now: now)
        return Step(subscription: s, changes: introduction(of: s), corrections: [], changed: true)
    }

    // MARK: - Periods

    func isLater(_ tx: SubscriptionTransaction, than s: Subscription, signedAt: Date) -> Bool {
        if let new = tx.purchasedAt, let old = s.periodStartedAt { return new > old }
        if let new = tx.expiresAt, let old = s.expiresAt { return new > old }
        return signedAt > s.transactionSignedAt
    }

    func adopt(_ tx: SubscriptionTransaction, fact: SubscriptionFact, into s: inout Subscription) {
        s.productID = tx.productID
        s.transactionID = tx.transactionID
        s.webOrderLineItemID = tx.webOrderLineItemID ?? s.webOrderLineItemID
        s.groupID = tx.groupID ?? s.groupID
        s.periodStartedAt = tx.purchasedAt ?? s.periodStartedAt
        s.expiresAt = tx.expiresAt
        s.offer = tx.offer
        s.familyShared = tx.familyShared
        s.revokedAt = tx.revokedAt
        s.revocationReason = tx.revokedAt == nil ? nil : revocationReason(tx, fact: fact)
        s.transactionSignedAt = fact.signedAt
    }

    func newPeriodChanges(_ tx: SubscriptionTransaction, fact: SubscriptionFact, before s: Subscription) -> [SubscriptionChange] {
        var changes: [SubscriptionChange] = []
        let productChanged = tx.productID != s.productID
        if productChanged {
            let timing: ProductChangeTiming = tx.isRenewal ? .atRenewal : .immediate
            changes.append(.productChanged(from: s.productID, to: tx.productID,
                                           kind: kind(from: s.productID, to: tx.productID, fact: fact, timing: timing), effective: timing))
        }
        let lapsed = s.status == .expired || s.status == .revoked
            || (s.expiresAt.map { end in tx.purchasedAt.map { $0 > end } ?? false } ?? false)
        if !tx.isRenewal && lapsed {
            changes.append(.resubscribed(productID: tx.productID, offer: tx.offer))
        } else if tx.isRenewal || !productChanged {
            let troubled = s.status == .billingRetry || s.status == .gracePeriod || s.inBillingRetry
            changes.append(.renewed(productID: tx.productID, expiresAt: tx.expiresAt, billingRecovered: troubled, offer: tx.offer))
        }
        return changes
    }

    func kind(from: String, to: String, fact: SubscriptionFact, timing: ProductChangeTiming) -> ProductChangeKind {
        if let a = levels[from], let b = levels[to] {
            return b < a ? .upgrade : b > a ? .downgrade : .crossgrade
        }
        switch fact.notificationSubtype {
        case "UPGRADE": return .upgrade
        case "DOWNGRADE": return .downgrade
        default: return timing == .immediate ? .upgrade : .downgrade
        }
    }

    // MARK: - Refunds and revocations

    static let familyRevocation = "family sharing ended"

    func revocationReason(_ tx: SubscriptionTransaction, fact: SubscriptionFact) -> String {
        if fact.notificationType == "REVOKE" || (tx.revocationReason == nil && tx.familyShared) { return Self.familyRevocation }
        return tx.revocationReason == 1 ? "refund (an issue in the app)" : "refund"
    }

    func revocationChanges(_ tx: SubscriptionTransaction, fact: SubscriptionFact, wasRevoked: Bool) -> [SubscriptionChange] {
        switch (wasRevoked, tx.revokedAt != nil) {
        case (false, true):
            let reason = revocationReason(tx, fact: fact)
            return [reason == Self.familyRevocation ? .revoked(reason: reason) : .refunded(reason: reason)]
        case (true, false): return [.refundReversed]
        default: return []
        }
    }

    // MARK: - Renewal info

    func renewalChanges(_ r: SubscriptionRenewal, fact: SubscriptionFact, subscription s: Subscription) -> [SubscriptionChange] {
        var changes: [SubscriptionChange] = []
        if let on = r.autoRenew, on != s.autoRenew, !(s.autoRenew == nil && on) {
            changes.append(on ? .autoRenewEnabled : .autoRenewDisabled(expiresAt: s.expiresAt))
        }
        let oldTarget = s.renewsToProductID ?? s.productID
        if let target = r.renewsToProductID, target != oldTarget {
            changes.append(target != s.productID
                ? .productChangeScheduled(from: s.productID, to: target, kind: kind(from: s.productID, to: target, fact: fact, timing: .atRenewal))
                : .productChangeCancelled(productID: s.productID, insteadOf: oldTarget))
        }
        if let consent = PriceIncreaseConsent(apple: r.priceIncreaseStatus), consent != s.priceIncrease {
            changes.append(.priceIncrease(consent))
        }
        return changes
    }

    func adopt(_ r: SubscriptionRenewal, signedAt: Date, into s: inout Subscription) {
        s.autoRenew = r.autoRenew ?? s.autoRenew
        s.renewsToProductID = r.renewsToProductID ?? s.renewsToProductID
        s.inBillingRetry = r.inBillingRetry ?? s.inBillingRetry
        s.gracePeriodExpiresAt = r.gracePeriodExpiresAt
        s.priceIncrease = PriceIncreaseConsent(apple: r.priceIncreaseStatus)
        if let intent = r.expirationIntent { s.expirationReason = ExpirationReason(expirationIntent: intent) }
        s.renewalSignedAt = signedAt
    }

    // MARK: - Status

    func settleStatus(_ fact: SubscriptionFact, into s: inout Subscription, derive: Bool, now: Date) {
        if s.revokedAt != nil {
            s.status = .revoked
        } else if let stated = fact.status.flatMap(SubscriptionStatus.init(apple:)), fact.signedAt >= (s.statusSignedAt ?? .distantPast) {
            s.status = stated
            s.statusSignedAt = fact.signedAt
        } else if derive {
            s.status = Self.impliedStatus(s, now: now)
        }
        if s.status == .expired, s.expirationReason == nil {
            s.expirationReason = ExpirationReason(expiredSubtype: fact.notificationType == "EXPIRED" ? fact.notificationSubtype : nil)
        }
        if s.status != .expired, s.status != .revoked, s.autoRenew != false { s.expirationReason = nil }
    }

    /// The status the period and renewal info imply at `now`, when Apple did not state one.
    public static func impliedStatus(_ s: Subscription, now: Date) -> SubscriptionStatus {
        if s.revokedAt != nil { return .revoked }
        guard let end = s.expiresAt, end <= now else { return .active }
        if s.inBillingRetry {
            if let grace = s.gracePeriodExpiresAt, grace > now { return .gracePeriod }
            return .billingRetry
        }
        return .expired
    }

    func statusChanges(from old: SubscriptionStatus, to s: Subscription, fact: SubscriptionFact, periodMoved: Bool,
                       already: [SubscriptionChange]) -> [SubscriptionChange] {
        guard old != s.status else { return [] }
        switch (old, s.status) {
        case (.active, .gracePeriod), (.expired, .gracePeriod):
            return [.billingIssue(gracePeriodExpiresAt: s.gracePeriodExpiresAt), .gracePeriodStarted(expiresAt: s.gracePeriodExpiresAt)]
        case (.active, .billingRetry), (.expired, .billingRetry):
            return [.billingIssue(gracePeriodExpiresAt: nil)]
        case (.billingRetry, .gracePeriod):
            return [.gracePeriodStarted(expiresAt: s.gracePeriodExpiresAt)]
        case (.gracePeriod, .billingRetry):
            return [.gracePeriodExpired]
        case (.gracePeriod, .expired):
            return [.gracePeriodExpired, .expired(reason: s.expirationReason)]
        case (_, .expired):
            return old == .revoked ? [] : [.expired(reason: s.expirationReason)]
        case (.billingRetry, .active), (.gracePeriod, .active):
            return periodMoved ? [] : [.billingRecovered]
        case (_, .revoked):
            let told = already.contains { if case .refunded = $0 { true } else if case .revoked = $0 { true } else { false } }
            return told ? [] : [.revoked(reason: s.revocationReason ?? "revoked by Apple")]
        default:
            return []
        }
    }

    // MARK: - Reconciliation

    func corrections(_ before: Subscription, _ after: Subscription, source: SubscriptionFact.Source) -> [String] {
        guard source == .statusCheck || source == .history else { return [] }
        var fields: [String] = []
        if before.status != after.status { fields.append("status") }
        if before.productID != after.productID { fields.append("product_id") }
        if before.expiresAt != after.expiresAt { fields.append("expires_at") }
        if before.autoRenew != nil, before.autoRenew != after.autoRenew { fields.append("auto_renew") }
        if before.renewsToProductID != after.renewsToProductID { fields.append("renews_to_product_id") }
        if before.revokedAt != after.revokedAt { fields.append("revoked_at") }
        return fields
    }
}
