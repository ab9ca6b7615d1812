import Foundation

/// The job's state machine, in one place. Pure: events in, the next state out; the clock is a
/// parameter. Drawn in docs/architecture.md (State machines, Jobs):
///
///     queued ──claim──▶ verifying ──complete──▶ granted | already_granted | owned_elsewhere | rejected | failed | resubmit
///        ▲                 │  │  │
///        │   retry ◀───────┘  │  └──timed out──▶ timed_out ──due (scheduler)──▶ queued
///        ├── lease expired ◀──┘ (scheduler), release (worker)
///        └── redrive (ops) ◀── failed ◀── discard (ops) ── queued | timed_out
///
/// Every path that would try a job again gives it up (`failed`) instead once its `RetryBudget`
/// is spent — and a retry of an answer that doubts the job itself (`Doubt`) sooner, by its own
/// rule. This is the only place a retry becomes `failed`. Terminal states never change, except that ops may re-drive a `failed` job.
public struct JobLifecycle: Sendable, Equatable {
    public var budget: RetryBudget
    /// How long answers that doubt the receipt (21002) are retried before the job is given up into
    /// `failed`. Apple's 21002 means "malformed or a temporary issue", and a 21002 storm once
    /// lasted about a day: so hours, never seconds. Default 24 h.
    public var doubtWindow: Duration
    /// 21004 answers (our shared secret refused) for one job before it is given up into `failed`
    /// (the fleet pauses only when several distinct jobs see 21004: `WorkerGate`). Default 5.
    public var secretMismatchAttempts: Int

    public init(budget: RetryBudget = RetryBudget(), doubtWindow: Duration = .seconds(24 * 3600), secretMismatchAttempts: Int = 5) {
        self.budget = budget
        self.doubtWindow = doubtWindow
        self.secretMismatchAttempts = secretMismatchAttempts
    }

    /// What the job needs for the budget: claims so far (after this attempt's claim), when its
    /// budget started (enqueue or the last re-drive), and its earlier 21004 answers.
    public struct Facts: Sendable, Equatable {
        public var attempts: Int
        public var createdAt: Date
        /// Earlier answers counted in `jobs.bounded_answers` (21004), not this one.
        public var boundedAnswers: Int
        public init(attempts: Int, createdAt: Date, boundedAnswers: Int = 0) {
            self.attempts = attempts
            self.createdAt = createdAt
            self.boundedAnswers = boundedAnswers
        }
    }

    /// Whether a doubted answer gives the job up before its budget is spent.
    func doubtsOutlast(_ end: AttemptEnd, facts: Facts, now: Date) -> Bool {
        switch end {
        case .receiptDoubted: now.timeIntervalSince(facts.createdAt) >= doubtWindow.seconds
        case .secretRefused: facts.boundedAnswers + 1 >= secretMismatchAttempts
        default: false
        }
    }

    /// Why a retry of kind `end` that `next` turned into `failed` was given up, for `outcome_reason`.
    public func givingUpReason(_ end: AttemptEnd, facts: Facts, lastError: String, now: Date) -> String {
        guard doubtsOutlast(end, facts: facts, now: now) else { return budget.reason(attempts: facts.attempts, lastError: lastError) }
        return end == .receiptDoubted
            ? "Apple answered \(lastError) for \(Int(doubtWindow.seconds / 3600)) h; kept for ops (receiptq redrive)"
            : "Apple refused our shared secret (21004) \(facts.boundedAnswers + 1) times: check RECEIPTQ_SHARED_SECRET, then receiptq redrive"
    }

    /// The state after `event`, or nil when the event cannot happen in `state` (the statement
    /// that carries it out then leaves the row alone).
    public func next(_ state: JobState, on event: JobEvent, facts: Facts, now: Date) -> JobState? {
        let spent = budget.isSpent(attempts: facts.attempts, createdAt: facts.createdAt, now: now)
        switch (state, event) {
        case (.queued, .claim): return .verifying
        case (.verifying, .complete(let end)):
            switch end {
            case .granted: return .granted
            case .alreadyGranted: return .alreadyGranted
            case .rejected: return .rejected
            case .failed: return .failed
            case .resubmit: return .resubmit
            case .ownedElsewhere: return .ownedElsewhere
            case .retry: return spent ? .failed : .queued
            case .receiptDoubted, .secretRefused: return spent || doubtsOutlast(end, facts: facts, now: now) ? .failed : .queued
            case .timedOut: return spent ? .failed : .timedOut
            }
        case (.verifying, .leaseExpired): return spent ? .failed : .queued
        case (.timedOut, .timedOutDue): return spent ? .failed : .queued
        case (.verifying, .release): return .queued
        case (.failed, .redrive): return .queued
        case (.queued, .discard), (.timedOut, .discard): return .failed
        default: return nil
        }
    }
}
