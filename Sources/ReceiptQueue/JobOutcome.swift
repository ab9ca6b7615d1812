/// How an attempt ended, as the worker reports it. `CompleteBatch` maps each case to SQL in one
/// place; the retry budget (`RetryPolicy`) decides before that whether a retry becomes `failed`.
public enum JobOutcome: Sendable, Hashable {
    /// Granted now (the grant row is written in the same transaction).
    case granted
    /// The transaction had been granted before; nothing new is granted.
    case alreadyGranted
    /// Apple or our checks say the receipt is not valid for this request. Terminal.
    case rejected(reason: String)
    /// Gave up (retry budget spent). Terminal; kept for ops.
    case failed(reason: String)
    /// Back to `queued`, claimable again after `delayMilliseconds`.
    case retry(delayMilliseconds: Int64, error: String)
    /// Apple did not answer in time: `timed_out`; the scheduler requeues it after `delayMilliseconds`.
    case timedOut(delayMilliseconds: Int64, error: String)
    /// Not attempted after all (shutdown): back to `queued` now, the attempt given back.
    case release

    /// The state the job is in after this outcome.
    public var state: JobState {
        switch self {
        case .granted: .granted
        case .alreadyGranted: .alreadyGranted
        case .rejected: .rejected
        case .failed: .failed
        case .retry, .release: .queued
        case .timedOut: .timedOut
        }
    }
}

/// One finished attempt: which lease it belongs to, how it ended, and what Apple said.
public struct JobCompletion: Sendable, Hashable {
    public var id: Int64
    public var attempt: Int
    public var outcome: JobOutcome
    /// Apple's verifyReceipt status, when Apple answered with JSON.
    public var appleStatus: Int?
    /// `Production` or `Sandbox`, when Apple answered.
    public var appleEnvironment: String?
    /// Apple's answer may mean the receipt itself is bad (21002…): counted in
    /// `jobs.bounded_answers`, the budget before such a job is rejected.
    public var boundedAnswer: Bool

    public init(lease: JobLease, outcome: JobOutcome, appleStatus: Int? = nil, appleEnvironment: String? = nil, boundedAnswer: Bool = false) {
        self.init(id: lease.id, attempt: lease.attempt, outcome: outcome, appleStatus: appleStatus,
                  appleEnvironment: appleEnvironment, boundedAnswer: boundedAnswer)
    }

    public init(id: Int64, attempt: Int, outcome: JobOutcome, appleStatus: Int? = nil, appleEnvironment: String? = nil,
                boundedAnswer: Bool = false) {
        self.id = id
        self.attempt = attempt
        self.outcome = outcome
        self.appleStatus = appleStatus
        self.appleEnvironment = appleEnvironment
        self.boundedAnswer = boundedAnswer
    }
}
