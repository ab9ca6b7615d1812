import Foundation

/// The job's state machine, in one place. Pure: events in, the next state out; the clock is a
/// parameter. Drawn in docs/architecture.md (State machines, Jobs):
///
///     queued ──claim──▶ verifying ──complete──▶ granted | already_granted | owned_elsewhere | rejected | failed | resubmit
///        ▲                 │  │  │
///        │   retry ◀───────┘  │  └──timed out──▶ timed_out ──due (scheduler)──▶ queued
///        ├── lease expired ◀──┘ (scheduler), release (worker)
///        └── redrive (ops) ◀── failed
///
/// Every path that would try a job again gives it up (`failed`) instead once its `RetryBudget`
/// is spent. Terminal states never change, except that ops may re-drive a `failed` job.
public struct JobLifecycle: Sendable, Equatable {
    public var budget: RetryBudget

    public init(budget: RetryBudget = RetryBudget()) {
        self.budget = budget
    }

    /// What the job needs for the budget: claims so far (after this attempt's claim) and when it
    /// was enqueued.
    public struct Facts: Sendable, Equatable {
        public var attempts: Int
        public var createdAt: Date
        public init(attempts: Int, createdAt: Date) {
            self.attempts = attempts
            self.createdAt = createdAt
        }
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
            case .timedOut: return spent ? .failed : .timedOut
            }
        case (.verifying, .leaseExpired): return spent ? .failed : .queued
        case (.timedOut, .timedOutDue): return spent ? .failed : .queued
        case (.verifying, .release): return .queued
        case (.failed, .redrive): return .queued
        default: return nil
        }
    }
}
