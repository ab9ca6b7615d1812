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

    @Test func theLastRetryIsScheduledAtTheDeadlineNotPastIt() {
        let policy = RetryPolicy(baseDelay: .seconds(600), maxDelay: .seconds(600), budget: RetryBudget(deadline: .seconds(3600)))
        var random = SplitMix64(state: 4)
        let enqueued = Date(timeIntervalSince1970: 0)
        #expect(policy.delayMilliseconds(afterAttempt: 1, createdAt: enqueued, now: enqueued.addingTimeInterval(3590), using: &random) == 10_000)
        #expect(policy.delayMilliseconds(afterAttempt: 1, createdAt: enqueued, now: enqueued.addingTimeInterval(4000), using: &random) == 0)
        let early = policy.delayMilliseconds(afterAttempt: 1, createdAt: enqueued, now: enqueued, using: &random)
        #expect(early >= 300_000 && early <= 600_000)
    }

    /// While the rest of Apple's answers are healthy, a job's first `quickRetries` retries wait
    /// `quickRetryDelay` only; later ones, and any while Apple is in trouble, grow as before.
    @Test(arguments: [
        (attempt: 1, healthy: true, full: Int64(500)),
        (attempt: 2, healthy: true, full: Int64(500)),
        (attempt: 3, healthy: true, full: Int64(500)),
        (attempt: 4, healthy: true, full: Int64(16_000)),
        (attempt: 2, healthy: false, full: Int64(4000)),
        (attempt: 3, healthy: false, full: Int64(8000)),
    ])
    func aTransientAnswerWhileAppleIsHealthyIsRetriedSoon(attempt: Int, healthy: Bool, full: Int64) {
        let policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600), quickRetries: 3)
        var random = SplitMix64(state: UInt64(attempt))
        let enqueued = Date(timeIntervalSince1970: 0)
        for _ in 0..<200 {
            let delay = policy.delayMilliseconds(afterAttempt: attempt, createdAt: enqueued, now: enqueued, appleHealthy: healthy, using: &random)
            #expect(delay >= full / 2 && delay <= full, "attempt \(attempt), healthy \(healthy): \(delay) ms")
        }
    }

    /// By default five: at a 15 % share of transient answers a fourth failure in a row is one
    /// job in ~2,000, and it must not wait 8–16 s behind the rest. Each waits a quarter to half a
    /// second: on top of Apple's 3–6 s per try, a wait of the first backoff (1–2 s) was 4–6 s of
    /// the last verdict of a degraded-Apple run.
    @Test func byDefaultTheFirstFiveRetriesAreQuick() {
        let policy = RetryPolicy()
        var random = SplitMix64(state: 5)
        let enqueued = Date(timeIntervalSince1970: 0)
        for attempt in 1...5 {
            let delay = policy.delayMilliseconds(afterAttempt: attempt, createdAt: enqueued, now: enqueued, appleHealthy: true, using: &random)
            #expect(delay >= 250 && delay <= 500, "attempt \(attempt): \(delay) ms")
        }
        let sixth = policy.delayMilliseconds(afterAttempt: 6, createdAt: enqueued, now: enqueued, appleHealthy: true, using: &random)
        #expect(sixth >= 32_000 && sixth <= 64_000)
    }

    /// A quick retry never waits longer than the first backoff would.
    @Test func aQuickRetryWaitsNoLongerThanTheFirstBackoff() {
        let policy = RetryPolicy(baseDelay: .milliseconds(200), maxDelay: .seconds(600), quickRetryDelay: .seconds(5))
        #expect(policy.quickRetryDelay == .milliseconds(200))
        var random = SplitMix64(state: 3)
        let enqueued = Date(timeIntervalSince1970: 0)
        for _ in 0..<100 {
            let delay = policy.delayMilliseconds(afterAttempt: 2, createdAt: enqueued, now: enqueued, appleHealthy: true, using: &random)
            #expect(delay >= 100 && delay <= 200, "\(delay) ms")
        }
    }

    @Test func noQuickRetriesWhenSwitchedOff() {
        let policy = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600), quickRetries: 0)
        var random = SplitMix64(state: 9)
        let enqueued = Date(timeIntervalSince1970: 0)
        let delay = policy.delayMilliseconds(afterAttempt: 3, createdAt: enqueued, now: enqueued, appleHealthy: true, using: &random)
        #expect(delay >= 4000 && delay <= 8000)
    }
}
