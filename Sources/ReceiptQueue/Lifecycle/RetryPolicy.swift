import Foundation

/// When to try a job again, and when to give up.
///
/// Delays grow exponentially from `baseDelay`, capped at `maxDelay`, with "full jitter" on the
/// upper half so thousands of jobs failing together during an outage do not return together.
/// Giving up is the `budget`'s rule, applied by `JobLifecycle` wherever a job would be retried.
public struct RetryPolicy: Sendable, Equatable {
    /// First retry delay. Default 2 s.
    public var baseDelay: Duration
    /// Longest delay between attempts. Default 10 min.
    public var maxDelay: Duration
    /// When to stop retrying. Default: `RetryBudget()` (72 h, 1,000 attempts).
    public var budget: RetryBudget

    public init(baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(600), budget: RetryBudget = RetryBudget()) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.budget = budget
    }

    /// The delay before attempt `attempt + 1`, in milliseconds: a value in
    /// [d/2, d] where d = min(maxDelay, baseDelay · 2^(attempt−1)).
    public func delayMilliseconds<R: RandomNumberGenerator>(afterAttempt attempt: Int, using random: inout R) -> Int64 {
        let base = baseDelay.milliseconds
        let cap = maxDelay.milliseconds
        let exponent = min(max(attempt - 1, 0), 40)
        let full = base > cap >> Int64(exponent) ? cap : min(cap, base << Int64(exponent))
        let half = full / 2
        return half + Int64.random(in: 0...(full - half), using: &random)
    }

    /// The delay for a job enqueued at `createdAt`, never past its deadline: the last retry
    /// happens at the deadline, and the budget gives the job up if that one fails too.
    public func delayMilliseconds<R: RandomNumberGenerator>(afterAttempt attempt: Int, createdAt: Date, now: Date,
                                                            using random: inout R) -> Int64 {
        let delay = delayMilliseconds(afterAttempt: attempt, using: &random)
        let left = Int64((budget.deadline.seconds - now.timeIntervalSince(createdAt)) * 1000)
        return max(0, min(delay, left))
    }
}
