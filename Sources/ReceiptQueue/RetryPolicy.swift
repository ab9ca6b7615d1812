import Foundation

/// When to try a job again, and when to give up.
///
/// Apple-side trouble must never use up a paid receipt quickly, so the budget is mainly a
/// deadline since enqueue (default 72 h); the attempt cap (default 1,000) only stops a job that
/// keeps failing for reasons of its own (e.g. one that crashes every worker that takes it).
/// Delays grow exponentially from `baseDelay`, capped at `maxDelay`, with "full jitter" on the
/// upper half so thousands of jobs failing together during an outage do not return together.
public struct RetryPolicy: Sendable, Equatable {
    /// First retry delay. Default 2 s.
    public var baseDelay: Duration
    /// Longest delay between attempts. Default 10 min.
    public var maxDelay: Duration
    /// Give up when this much time has passed since enqueue. Default 72 h.
    public var deadline: Duration
    /// Give up after this many attempts. Default 1,000.
    public var maxAttempts: Int

    public init(baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(600),
                deadline: Duration = .seconds(72 * 3600), maxAttempts: Int = 1000) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.deadline = deadline
        self.maxAttempts = maxAttempts
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

    /// Retry, or give up with a reason, for a job that failed attempt `attempt`.
    public func outcome<R: RandomNumberGenerator>(afterAttempt attempt: Int, enqueuedAt: Date, now: Date, error: String,
                                                  timedOut: Bool = false, using random: inout R) -> JobOutcome {
        let delay = delayMilliseconds(afterAttempt: attempt, using: &random)
        if attempt >= maxAttempts {
            return .failed(reason: "gave up after \(attempt) attempts; last error: \(error)")
        }
        let retryAt = now.addingTimeInterval(Double(delay) / 1000)
        if retryAt.timeIntervalSince(enqueuedAt) >= deadline.seconds {
            return .failed(reason: "gave up after \(Int(deadline.seconds / 3600)) h deadline; last error: \(error)")
        }
        return timedOut ? .timedOut(delayMilliseconds: delay, error: error) : .retry(delayMilliseconds: delay, error: error)
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    public var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a floating-point number.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
