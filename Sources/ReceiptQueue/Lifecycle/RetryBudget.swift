import Foundation

/// When a job that keeps failing for passing reasons is given up (`failed`): after `maxAttempts`
/// claims, or once `deadline` has passed since it was enqueued — the one rule for every path that
/// may give up (a worker's retry, an expired lease, a due timeout). Apple-side trouble must never
/// use up a paid receipt quickly, so the deadline (default 72 h) is the budget that matters; the
/// attempt cap (default 1,000) stops a job that fails for reasons of its own, such as one that
/// crashes every worker that takes it.
public struct RetryBudget: Sendable, Equatable {
    /// Give up after this many claims. Default 1,000.
    public var maxAttempts: Int
    /// Give up once this long has passed since enqueue. Default 72 h.
    public var deadline: Duration

    public init(maxAttempts: Int = 1000, deadline: Duration = .seconds(72 * 3600)) {
        self.maxAttempts = maxAttempts
        self.deadline = deadline
    }

    /// The budget is spent: the job must not be tried again.
    public func isSpent(attempts: Int, createdAt: Date, now: Date) -> Bool {
        attempts >= maxAttempts || now.timeIntervalSince(createdAt) >= deadline.seconds
    }

    /// The same rule as SQL over a `receiptq.jobs` row, with the budget as parameters `$max`
    /// (attempts) and `$deadline` (milliseconds), the deadline counted from the last re-drive if
    /// any: statements that give up in bulk splice this fragment in, so there is one spelling of it.
    static func sqlIsSpent(maxAttemptsParameter max: Int, deadlineParameter deadline: Int, table: String) -> String {
        "(\(table).attempts >= $\(max) OR coalesce(\(table).redriven_at, \(table).created_at) + $\(deadline) * interval '1 millisecond' <= now())"
    }

    /// Why the job was given up, for `outcome_reason`.
    public func reason(attempts: Int, lastError: String) -> String {
        attempts >= maxAttempts
            ? "gave up after \(attempts) attempts; last error: \(lastError)"
            : "gave up after the \(deadline.hoursText) deadline; last error: \(lastError)"
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

    /// "72 h", "90 s": for reasons people read.
    var hoursText: String {
        components.seconds >= 3600 && components.seconds % 3600 == 0 ? "\(components.seconds / 3600) h" : "\(components.seconds) s"
    }
}
