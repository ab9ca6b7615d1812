/// The kinds of event a backend receives (webhooks and `GET /v1/events`). One event per change:
/// each job that reaches a verdict, each job given up. Types are stable strings; a backend
/// switches on them and ignores types it does not know (more come with Apple's notifications).
public enum EventType: String, Sendable, CaseIterable, Codable {
    /// Granted now: deliver the goods.
    case delivered = "verdict.delivered"
    /// The purchase was granted before (a resubmission, a restore, another account).
    case alreadyDelivered = "verdict.already_delivered"
    /// Apple says it is not a valid purchase, or it was refunded.
    case notPaid = "verdict.not_paid"
    /// The receipt did not hold the transaction yet: the app must resubmit.
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

    /// The event a job's terminal state produces.
    public init(terminal state: JobState) {
        switch state {
        case .granted: self = .delivered
        case .alreadyGranted: self = .alreadyDelivered
        case .rejected: self = .notPaid
        case .resubmit: self = .resubmit
        case .failed, .queued, .verifying, .timedOut: self = .jobFailed
        }
    }
}
