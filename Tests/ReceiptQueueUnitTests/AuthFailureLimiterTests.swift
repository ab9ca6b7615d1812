@testable import ReceiptQueue
import Testing

@Suite("Failed authentication: limited per client address")
struct AuthFailureLimiterTests {
    private let start = ContinuousClock.now

    @Test("the limit's failures pass as 401s, then the address is blocked until a failure's worth refills")
    func blocksAfterTheLimit() {
        let limiter = AuthFailureLimiter(failuresPerMinute: 20)
        for _ in 0..<19 { #expect(limiter.failed("10.0.0.1", now: start) == nil) }
        #expect(limiter.blocked("10.0.0.1", now: start) == nil)
        #expect(limiter.failed("10.0.0.1", now: start) == 3)        // 60 s / 20: one failure refills in 3 s
        #expect(limiter.blocked("10.0.0.1", now: start) == 3)
        #expect(limiter.blocked("10.0.0.1", now: start + .seconds(2)) == 1)
        #expect(limiter.blocked("10.0.0.1", now: start + .seconds(3)) == nil)
        #expect(limiter.blocked("10.0.0.2", now: start) == nil)     // another address is not affected
    }

    @Test("0 switches it off")
    func zeroIsOff() {
        let limiter = AuthFailureLimiter(failuresPerMinute: 0)
        for _ in 0..<100 { limiter.failed("10.0.0.1", now: start) }
        #expect(limiter.blocked("10.0.0.1", now: start) == nil)
    }

    @Test("the table of addresses is bounded: refilled ones go first, then the oldest")
    func theTableIsBounded() {
        let limiter = AuthFailureLimiter(failuresPerMinute: 2, maxTracked: 3)
        limiter.failed("a", now: start)
        limiter.failed("b", now: start + .seconds(1))
        limiter.failed("c", now: start + .seconds(2))
        limiter.failed("d", now: start + .seconds(3))
        #expect(limiter.tracked == 3)
        limiter.failed("e", now: start + .seconds(200))               // all refilled by now: forgotten
        #expect(limiter.tracked == 1)
    }
}
