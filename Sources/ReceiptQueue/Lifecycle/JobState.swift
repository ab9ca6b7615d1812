/// Where a job is in its life; how it moves is `JobLifecycle`. What a job means for the app is its
/// `Verdict`, read from the state and the ledger together (`receiptq.verdict`).
public enum JobState: String, Sendable, CaseIterable, Codable {
    case queued
    case verifying
    case timedOut = "timed_out"
    case granted
    case alreadyGranted = "already_granted"
    case rejected
    case failed
    /// Apple verified the receipt, but it does not (yet) hold the transaction: the app must
    /// refresh its receipt and submit again. A newer submission supersedes the job.
    case resubmit
    /// The purchase belongs to another account (an earlier submitter with proof, or the user of the
    /// order Apple's appAccountToken names): this submitter gets nothing.
    case ownedElsewhere = "owned_elsewhere"

    /// Terminal states never change again; they carry `finished_at`.
    public var isTerminal: Bool {
        switch self {
        case .granted, .alreadyGranted, .rejected, .failed, .resubmit, .ownedElsewhere: true
        case .queued, .verifying, .timedOut: false
        }
    }
}

