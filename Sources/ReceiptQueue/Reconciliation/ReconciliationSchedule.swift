import Foundation

/// When Apple's status is next read for a subscription, after a status check: due-first, sized so
/// that most subscribers cost a few requests a month and the ones whose state is moving cost more.
/// Pure. A change a notification made brings the next check forward to `afterChange` (the
/// `subscriptions_schedule_reconciliation` trigger; a new subscription likewise).
///
/// | state | next check |
/// |---|---|
/// | grace period | every `inGrace`, and just after the grace period ends |
/// | billing retry | every `inBillingRetry` |
/// | active | just after the period ends (`afterExpiry` past it: did it renew?), at most `active` away |
/// | expired, revoked | every `ended` |
public struct ReconciliationSchedule: Sendable, Hashable {
    /// Default 6 h.
    public var inGrace: TimeInterval
    /// Default 12 h.
    public var inBillingRetry: TimeInterval
    /// Default 7 days.
    public var active: TimeInterval
    /// How long after a period's end a renewal is looked for. Default 1 h.
    public var afterExpiry: TimeInterval
    /// Default 30 days.
    public var ended: TimeInterval
    /// After a change a notification made (the trigger's interval; documentation only here). Default 1 h.
    public var afterChange: TimeInterval
    /// When Apple could not answer: try again after this. Default 15 min.
    public var afterFailure: TimeInterval

    public init(inGrace: TimeInterval = 6 * 3600, inBillingRetry: TimeInterval = 12 * 3600, active: TimeInterval = 7 * 86_400,
                afterExpiry: TimeInterval = 3600, ended: TimeInterval = 30 * 86_400, afterChange: TimeInterval = 3600,
                afterFailure: TimeInterval = 900) {
        self.inGrace = inGrace
        self.inBillingRetry = inBillingRetry
        self.active = active
        self.afterExpiry = afterExpiry
        self.ended = ended
        self.afterChange = afterChange
        self.afterFailure = afterFailure
    }

    /// The next check of a subscription in `status`, checked at `now`.
    public func next(_ status: SubscriptionStatus, expiresAt: Date?, gracePeriodExpiresAt: Date?, now: Date) -> Date {
        switch status {
        case .gracePeriod:
            let regular = now.addingTimeInterval(inGrace)
            guard let end = gracePeriodExpiresAt, end > now else { return regular }
            return min(regular, end.addingTimeInterval(afterExpiry))
        case .billingRetry:
            return now.addingTimeInterval(inBillingRetry)
        case .active:
            let regular = now.addingTimeInterval(active)
            guard let end = expiresAt else { return regular }
            let renewalCheck = end.addingTimeInterval(afterExpiry)
            return renewalCheck > now ? min(regular, renewalCheck) : now.addingTimeInterval(afterExpiry)
        case .expired, .revoked:
            return now.addingTimeInterval(ended)
        }
    }

    /// Status checks per subscriber per day at steady state, for a subscription in `status` whose
    /// periods last `period` (what docs/benchmarks.md reports): the regular checks plus one after
    /// each period's end.
    public func checksPerDay(_ status: SubscriptionStatus, period: TimeInterval) -> Double {
        switch status {
        case .active:
            // One check per period at its end; regular checks fill gaps longer than `active`.
            let perPeriod = 1 + max(0, (period - afterExpiry).rounded(.up) / active).rounded(.down)
            return perPeriod * 86_400 / period
        case .gracePeriod: return 86_400 / inGrace
        case .billingRetry: return 86_400 / inBillingRetry
        case .expired, .revoked: return 86_400 / ended
        }
    }
}
