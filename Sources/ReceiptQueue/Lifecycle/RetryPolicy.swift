import Foundation

/// When to try a job again, and when to give up.
///
/// Delays grow exponentially from `baseDelay`, capped at `maxDelay`, with "full jitter" on the
/// upper half so thousands of jobs failing together during an outage do not return together.
/// Giving up is the `budget`'s rule, applied by `JobLifecycle` wherever a job would be retried.
///
/// Backing off is for an Apple in trouble, which the circuit breaker already meters for the
/// whole worker. A transient answer (a 503, a 21005) while the rest of Apple's answers are
/// healthy is one unlucky request, not a sign to wait: its first `quickRetries` retries wait
/// only `quickRetryDelay` (0.25–0.5 s by default), and only later ones grow. Waiting 8–32 s before a
/// third or fourth try was the whole tail of a degraded-Apple run (5 % each of 503, 21005 and
/// 21199: the last verdicts came ~30 s after the rest, every one of them a retry). The requests
/// per receipt do not change (each try is as likely to fail), only when they are sent; a receipt
/// Apple keeps failing still backs off after `quickRetries`. Five, not three: at a 15 % share of
/// transient answers one job in ~2,000 fails four times in a row, and with three quick retries its
/// fourth waited 8–16 s, the last verdict of half the runs of 5,000; one in ~90,000 fails six
/// times. A receipt Apple always fails costs two requests more before it backs off.
/// Why a quick retry waits a quarter to half a second, not the first backoff (1–2 s): each of a
/// tail job's three or four tries waited it on top of Apple's 3–6 s, 4–6 s of a degraded-Apple
/// run's last verdict; the jitter still spreads a burst of 503s, and the breaker, not this
/// delay, is what keeps a failing Apple from being asked again at once.
public struct RetryPolicy: Sendable, Equatable {
    /// First retry delay. Default 2 s.
    public var baseDelay: Duration
    /// Longest delay between attempts. Default 10 min.
    public var maxDelay: Duration
    /// When to stop retrying. Default: `RetryBudget()` (72 h, 1,000 attempts).
    public var budget: RetryBudget
    /// Retries that wait only `quickRetryDelay` while Apple is healthy. Default 5.
    public var quickRetries: Int
    /// What a quick retry waits: a value in [d/2, d]. Default 0.5 s, and never more than
    /// `baseDelay`.
    public var quickRetryDelay: Duration

    public init(baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(600), budget: RetryBudget = RetryBudget(),
                quickRetries: Int = 5, quickRetryDelay: Duration = .milliseconds(500)) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.budget = budget
        self.quickRetries = max(0, quickRetries)
        self.quickRetryDelay = max(.zero, min(quickRetryDelay, baseDelay))
    }

    /// The delay before attempt `attempt + 1`, in milliseconds: a value in
    /// [d/2, d] where d = min(maxDelay, baseDelay · 2^(attempt−1)).
    public func delayMilliseconds<R: RandomNumberGenerator>(afterAttempt attempt: Int, using random: inout R) -> Int64 {
        let base = baseDelay.milliseconds
        let cap = maxDelay.milliseconds
        let exponent = min(max(attempt - 1, 0), 40)
        let full = base > cap >> Int64(exponent) ? cap : min(cap, base << Int64(exponent))
        return Self.jittered(full, using: &random)
    }

    /// A value in [full/2, full]: "full jitter" on the upper half.
    private static func jittered<R: RandomNumberGenerator>(_ full: Int64, using random: inout R) -> Int64 {
        full / 2 + Int64.random(in: 0...(full - full / 2), using: &random)
    }

    /// The delay for a job enqueued at `createdAt`, never past its deadline: the last retry
    /// happens at the deadline, and the budget gives the job up if that one fails too.
    /// `appleHealthy`: the rest of Apple's answers are fine (the breaker is closed), so attempts
    /// up to `quickRetries` wait `quickRetryDelay` only.
    public func delayMilliseconds<R: RandomNumberGenerator>(afterAttempt attempt: Int, createdAt: Date, now: Date,
                                                            appleHealthy: Bool = false, using random: inout R) -> Int64 {
        let delay = appleHealthy && attempt <= quickRetries
            ? Self.jittered(quickRetryDelay.milliseconds, using: &random)
            : delayMilliseconds(afterAttempt: attempt, using: &random)
        let left = Int64((budget.deadline.seconds - now.timeIntervalSince(createdAt)) * 1000)
        return max(0, min(delay, left))
    }
}
