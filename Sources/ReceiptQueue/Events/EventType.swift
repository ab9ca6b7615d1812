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
    /// A subscription's state changed between renewals: expired, billing retry, grace period,
    /// auto-renew turned off or on (new periods arrive as `verdict.delivered` of their own).
    case subscriptionChanged = "subscription.changed"
    /// Apple asks about a refund request (CONSUMPTION_REQUEST): record the user's consent
    /// (PUT /v1/users/{id}/consumption-consent) within hours for Apple to be answered.
    case consumptionRequested = "consumption.requested"
    /// A parent withdrew consent for the customer's use of the app (RESCIND_CONSENT, Apple's age
    /// assurance): end the account's session and consent-scoped data. Its `user_id` is
    /// `app-transaction:<appTransactionId>` — the Apple Account, which Apple names by its app
    /// transaction; map it to your user through the app's `AppTransaction`.
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
