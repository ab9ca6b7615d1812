import Foundation
import HTTPClient
import ReceiptQueue

/// What one delivery attempt's answer means: the receiver acknowledged it (any 2xx), or it is
/// tried again with exponential backoff and jitter until the retry deadline (3 days by default)
/// has passed since the delivery was made (or re-driven), then given up into `failed` — kept,
/// visible in `receiptq.webhook_health`, re-drivable. Pure.
///
/// Every non-2xx answer is retried, 4xx included: a receiver that answers 401 because its
/// secret was rotated, or 404 during a deploy, must not lose events. The per-endpoint breaker
/// keeps such a receiver from being hammered meanwhile.
public struct DeliveryDecision: Sendable {
    public var retry: RetryPolicy

    /// Default: 5 s doubling to 1 h, given up after 72 h.
    public init(retry: RetryPolicy = RetryPolicy(baseDelay: .seconds(5), maxDelay: .seconds(3600),
                                                 budget: RetryBudget(maxAttempts: 100_000, deadline: .seconds(72 * 3600)))) {
        self.retry = retry
    }

    /// The HTTP outcome of one POST: a status, or a transport error.
    public enum Answer: Sendable, Equatable {
        case status(Int)
        case transportError(String)
    }

    /// The result to record, and whether it counts as the receiver failing (for its breaker).
    public func decide<R: RandomNumberGenerator>(_ answer: Answer, lease: DeliveryLease, now: Date,
                                                 using random: inout R) -> (result: DeliveryResult, receiverFailed: Bool) {
        let status: Int?
        let error: String
        switch answer {
        case .status(let code) where (200...299).contains(code):
            return (.delivered(status: code), false)
        case .status(let code):
            status = code
            error = "HTTP \(code)"
        case .transportError(let text):
            status = nil
            error = String(text.prefix(200))
        }
        if now.timeIntervalSince(lease.budgetFrom) >= retry.budget.deadline.seconds {
            return (.failed(status: status, error: "gave up after the \(Int(retry.budget.deadline.seconds / 3600)) h deadline; last error: \(error)"), true)
        }
        let delay = retry.delayMilliseconds(afterAttempt: lease.attempt, createdAt: lease.budgetFrom, now: now, using: &random)
        return (.retry(delayMilliseconds: delay, status: status, error: error), true)
    }
}
