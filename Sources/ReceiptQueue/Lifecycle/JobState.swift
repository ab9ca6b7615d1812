/// Where a job is in its life; how it moves is `JobLifecycle`. The client-facing meaning of each
/// state is its `Verdict`.
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

    /// Terminal states never change again; they carry `finished_at`.
    public var isTerminal: Bool {
        switch self {
        case .granted, .alreadyGranted, .rejected, .failed, .resubmit: true
        case .queued, .verifying, .timedOut: false
        }
    }
}

