/// The kinds of event a backend receives (webhooks and `GET /v1/events`). One event per change:
/// each job that reaches a verdict (`verdict.<verdict>`, read from the ledger like the status
/// resource), each job given up. Types are stable strings; a backend switches on them and ignores
/// types it does not know (more come with Apple's notifications).
public enum EventType: String, Sendable, CaseIterable, Codable {
    /// Granted now, to this user: deliver the goods.
    case delivered = "verdict.delivered"
    /// This user's purchase was granted before (a resubmission, a restore, another device).
    case alreadyDelivered = "verdict.already_delivered"
    /// Someone submitted a purchase that belongs to another account: deliver nothing to them.
    case ownedByAnotherUser = "verdict.owned_by_another_user"
    /// The purchase was refunded or revoked before this job ended.
    case revoked = "verdict.revoked"
    /// Apple says it is not a valid purchase, or it was refunded.
    case notPaid = "verdict.not_paid"
    /// The receipt did not hold the transaction yet, or no proof came with it: the app must resubmit.
    case resubmit = "verdict.resubmit"
    /// Given up after the retry budget; kept for ops and re-drivable (the purchase is not lost).
    case jobFailed = "job.failed"
    /// Apple refunded or revoked a granted purchase (REFUND, or REVOKE when family sharing ended):
    /// take the goods back.
    case grantRevoked = "grant.revoked"
    /// Apple reversed a refund (REFUND_REVERSED): the purchase counts again.
    case grantReinstated = "grant.reinstated"
    /// An operator granted a product by hand (`receiptq.support_grant`; `data.manual` true).
    case grantGrantedManually = "grant.granted_manually"
    /// An operator moved a purchase between app accounts (`receiptq.support_transfer`): one
    /// event to each account, `data.direction` `out` or `in`.
    case grantTransferred = "grant.transferred"
    // A subscription's life, one type per change (`SubscriptionChange`), each with the
    // subscription as it stands after it. New periods are also granted (`verdict.delivered` of
    // their own); these say what happened to the subscription.
    /// Bought for the first time (in this subscription group).
    case subscriptionPurchased = "subscription.purchased"
    /// Bought again after it had expired.
    case subscriptionResubscribed = "subscription.resubscribed"
    /// A new period began.
    case subscriptionRenewed = "subscription.renewed"
    /// Another product of the group is in effect now (an upgrade at once, a downgrade or
    /// crossgrade at renewal): move the user's access to it.
    case subscriptionProductChanged = "subscription.product_changed"
    /// A downgrade or crossgrade waits for the renewal; access is unchanged until then.
    case subscriptionProductChangeScheduled = "subscription.product_change_scheduled"
    /// The customer went back on a scheduled product change.
    case subscriptionProductChangeCancelled = "subscription.product_change_cancelled"
    /// The customer turned auto-renew off: access lasts until the period ends.
    case subscriptionAutoRenewDisabled = "subscription.auto_renew_disabled"
    /// The customer turned auto-renew back on.
    case subscriptionAutoRenewEnabled = "subscription.auto_renew_enabled"
    /// A renewal failed to bill; Apple retries (access continues only in a grace period).
    case subscriptionBillingIssue = "subscription.billing_issue"
    /// A billing grace period began: access continues until it ends.
    case subscriptionGracePeriodStarted = "subscription.grace_period_started"
    /// The grace period ended without a payment (Apple may still retry).
    case subscriptionGracePeriodExpired = "subscription.grace_period_expired"
    /// A payment went through after a billing issue.
    case subscriptionBillingRecovered = "subscription.billing_recovered"
    /// The subscription ended (the reason says why): end access.
    case subscriptionExpired = "subscription.expired"
    /// Apple extended the current period (a renewal-date extension).
    case subscriptionExtended = "subscription.extended"
    /// The current period was refunded: end access.
    case subscriptionRefunded = "subscription.refunded"
    /// A refund was reversed: access is back.
    case subscriptionRefundReversed = "subscription.refund_reversed"
    /// Access ended without a refund (family sharing ended, or Apple revoked it).
    case subscriptionRevoked = "subscription.revoked"
    /// A price increase needing consent was asked, or agreed to.
    case subscriptionPriceIncrease = "subscription.price_increase"
    /// Apple asks about a refund request (CONSUMPTION_REQUEST): record the user's consent
    /// (PUT /v1/users/{id}/consumption-consent) within hours for Apple to be answered.
    case consumptionRequested = "consumption.requested"
    /// A parent withdrew consent for the customer's use of the app (RESCIND_CONSENT, Apple's age
    /// assurance): end the account's session and consent-scoped data. Its `user_id` is the user
    /// who submitted the Apple Account's app transaction (POST /v1/users/{id}/app-transactions),
    /// else `app-transaction:<appTransactionId>` — the Apple Account, which Apple names by its app
    /// transaction only.
    case consentRescinded = "consent.rescinded"

    /// The event a finished job produces: `job.failed` for a job given up, else its verdict's.
    /// (`receiptq.append_job_events` names them the same way; `EventTypeAgreementTests` checks it.)
    public init(finished state: JobState, verdict: Verdict) {
        if state == .failed {
            self = .jobFailed
            return
        }
        switch verdict {
        case .delivered: self = .delivered
        case .alreadyDelivered: self = .alreadyDelivered
        case .ownedByAnotherUser: self = .ownedByAnotherUser
        case .revoked: self = .revoked
        case .notPaid: self = .notPaid
        case .resubmit: self = .resubmit
        case .pending: self = .jobFailed
        }
    }
}
