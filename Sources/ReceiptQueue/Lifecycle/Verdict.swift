/// What a job means for the app, in the seeds' terms: the one field the client acts on. Only
/// `notPaid` lets the app finish the StoreKit transaction without delivering, so it must be
/// certain: only Apple's own "invalid" (or another app's receipt, or a refund) leads there.
public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Granted now: deliver the goods (seed status 2).
    case delivered
    /// The purchase was granted before (a resubmission, a restore, another device; seed 1).
    case alreadyDelivered = "already_delivered"
    /// Apple says it is not a valid purchase (seed 3): finish the transaction, deliver nothing.
    case notPaid = "not_paid"
    /// The receipt does not hold the transaction yet: keep the transaction unfinished, refresh
    /// the receipt and submit again.
    case resubmit
    /// Anything else: Apple slow, down, or answering something we do not understand — keep the
    /// transaction unfinished; nothing is lost.
    case pending

    public init(_ state: JobState) {
        switch state {
        case .granted: self = .delivered
        case .alreadyGranted: self = .alreadyDelivered
        case .rejected: self = .notPaid
        case .resubmit: self = .resubmit
        case .queued, .verifying, .timedOut, .failed: self = .pending
        }
    }
}
