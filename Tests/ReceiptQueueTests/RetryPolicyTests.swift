import Foundation
import ReceiptQueue
import Testing

/// A seeded generator so jitter is exercised but results are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Retry policy: backoff, jitter, budget")
struct RetryPolicyTests {
    @Test func delaysDoubleFromTheBaseWithJitterInTheUpperHalf() {
        let policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600))
        var random = SplitMix64(state: 1)
        for attempt in 1...6 {
            let full = Int64(2000) << Int64(attempt - 1)
            for _ in 0..<200 {
                let delay = policy.delayMilliseconds(afterAttempt: attempt, using: &random)
                #expect(delay >= full / 2 && delay <= full)
            }
        }
    }

    @Test func delaysAreCappedAndNeverOverflow() {
        let policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600))
        var random = SplitMix64(state: 2)
        for attempt in [10, 40, 63, 64, 1000, Int.max] {
            let delay = policy.delayMilliseconds(afterAttempt: attempt, using: &random)
            #expect(delay >= 300_000 && delay <= 600_000)
        }
    }

    @Test func jitterSpreadsJobsThatFailedTogether() {
        let policy = RetryPolicy()
        var random = SplitMix64(state: 3)
        let delays = Set((0..<1000).map { _ in policy.delayMilliseconds(afterAttempt: 5, using: &random) })
        #expect(delays.count > 900)
    }

    @Test func appleTroubleRetriesUntilTheDeadlineNotAfterAFewAttempts() {
        let policy = RetryPolicy()   // 72 h, 1,000 attempts
        var random = SplitMix64(state: 4)
        let enqueued = Date(timeIntervalSince1970: 0)
        let early = policy.outcome(afterAttempt: 50, enqueuedAt: enqueued, now: enqueued.addingTimeInterval(3600), error: "HTTP 503", using: &random)
        guard case .retry = early else { Issue.record("expected retry, got \(early)"); return }
        let late = policy.outcome(afterAttempt: 51, enqueuedAt: enqueued, now: enqueued.addingTimeInterval(72 * 3600 - 1), error: "HTTP 503", using: &random)
        guard case .failed(let reason) = late else { Issue.record("expected failed, got \(late)"); return }
        #expect(reason.contains("72 h deadline"))
        #expect(reason.contains("HTTP 503"))
    }

    @Test func attemptCapEndsAJobThatKeepsFailing() {
        let policy = RetryPolicy(maxAttempts: 3)
        var random = SplitMix64(state: 5)
        let now = Date()
        guard case .retry = policy.outcome(afterAttempt: 2, enqueuedAt: now, now: now, error: "e", using: &random) else {
            Issue.record("attempt 2 of 3 should retry"); return
        }
        guard case .failed = policy.outcome(afterAttempt: 3, enqueuedAt: now, now: now, error: "e", using: &random) else {
            Issue.record("attempt 3 of 3 should fail"); return
        }
    }

    @Test func timeoutsBecomeTimedOutNotRetry() {
        var random = SplitMix64(state: 6)
        let now = Date()
        let outcome = RetryPolicy().outcome(afterAttempt: 1, enqueuedAt: now, now: now, error: "no answer", timedOut: true, using: &random)
        guard case .timedOut(let delay, let error) = outcome else { Issue.record("expected timedOut, got \(outcome)"); return }
        #expect(delay >= 1000 && delay <= 2000)
        #expect(error == "no answer")
        #expect(outcome.state == .timedOut)
    }
}
