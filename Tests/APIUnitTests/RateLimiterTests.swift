@testable import API
import Testing

/// The token bucket on an explicit clock, so the arithmetic is checked without sleeping.
@Suite("Rate limiter: a token bucket per API token")
struct RateLimiterTests {
    private let start = ContinuousClock.now

    @Test("A full bucket allows the burst, then asks for the seconds until one token refills")
    func burstThenWait() {
        let limiter = RateLimiter(ratePerSecond: 0.5, burst: 2)
        #expect(limiter.acquire(key: 1, now: start) == nil)
        #expect(limiter.acquire(key: 1, now: start) == nil)
        #expect(limiter.acquire(key: 1, now: start) == 2)
        #expect(limiter.acquire(key: 1, now: start + .milliseconds(1_500)) == 1)
        #expect(limiter.acquire(key: 1, now: start + .milliseconds(2_000)) == nil)
    }

    @Test("Each token has its own bucket")
    func bucketsArePerToken() {
        let limiter = RateLimiter(ratePerSecond: 1, burst: 1)
        #expect(limiter.acquire(key: 1, now: start) == nil)
        #expect(limiter.acquire(key: 1, now: start) == 1)
        #expect(limiter.acquire(key: 2, now: start) == nil)
    }

    @Test("Idle time refills no more than the burst")
    func refillIsCappedAtBurst() {
        let limiter = RateLimiter(ratePerSecond: 10, burst: 3)
        #expect(limiter.acquire(key: 1, now: start) == nil)
        let later = start + .seconds(3_600)
        for _ in 0..<3 { #expect(limiter.acquire(key: 1, now: later) == nil) }
        #expect(limiter.acquire(key: 1, now: later) == 1)
    }

    @Test("A rate of zero means unlimited")
    func zeroRateIsUnlimited() {
        let limiter = RateLimiter(ratePerSecond: 0, burst: 1)
        for _ in 0..<1_000 { #expect(limiter.acquire(key: 1, now: start) == nil) }
    }
}
