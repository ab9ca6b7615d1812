/// How a job's attempt was recorded: the worker's `AttemptResult`, or the ledger's verdict on a
/// grant. Reported by `RecordOutcomes` (for metrics and logs); it cannot be written directly.
public enum JobOutcome: Sendable, Hashable {
    case granted
    case alreadyGranted
    case rejected(reason: String)
    case failed(reason: String)
    case resubmit(reason: String)
    /// The ledger found the purchase to be another account's.
    case ownedElsewhere(reason: String)
    case retry(delayMilliseconds: Int64, error: String)
    /// A retry the lifecycle may give up sooner (never reported: `RecordOutcomes` reports it as
    /// the `retry` or `failed` it became).
    case doubted(Doubt, delayMilliseconds: Int64, error: String)
    case timedOut(delayMilliseconds: Int64, error: String)
    case release

    init(_ result: AttemptResult) {
        switch result {
        case .rejected(let reason): self = .rejected(reason: reason)
        case .failed(let reason): self = .failed(reason: reason)
        case .resubmit(let reason): self = .resubmit(reason: reason)
        case .retry(let delay, let error): self = .retry(delayMilliseconds: delay, error: error)
        case .doubted(let doubt, let delay, let error): self = .doubted(doubt, delayMilliseconds: delay, error: error)
        case .timedOut(let delay, let error): self = .timedOut(delayMilliseconds: delay, error: error)
        case .release: self = .release
        }
    }

    /// The lifecycle event this outcome is.
    var event: JobEvent {
        switch self {
        case .granted: .complete(.granted)
        case .alreadyGranted: .complete(.alreadyGranted)
        case .rejected: .complete(.rejected)
        case .failed: .complete(.failed)
        case .resubmit: .complete(.resubmit)
        case .ownedElsewhere: .complete(.ownedElsewhere)
        case .retry: .complete(.retry)
        case .doubted(let doubt, _, _): .complete(doubt.end)
        case .timedOut: .complete(.timedOut)
        case .release: .release
        }
    }

    /// The error text a retry carries (for `last_error` and a give-up reason).
    var error: String? {
        switch self {
        case .retry(_, let error), .timedOut(_, let error), .doubted(_, _, let error): error
        default: nil
        }
    }
}
