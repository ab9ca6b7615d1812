import Testing
import Worker

@Suite("Canaries: a backlog after a lull waits for its first requests to fail")
struct CanaryPolicyTests {
    let t0 = ContinuousClock.now
    var policy: CanaryPolicy<ContinuousClock.Instant> { CanaryPolicy(window: .milliseconds(500), pace: .milliseconds(5), chunk: 20) }

    @Test func aWorkerThatSentNothingLatelyWaitsTheWindowAfterItsFirstChunk() {
        var policy = policy
        #expect(policy.firstPause(now: t0, newestFailureSentAt: nil) == .milliseconds(500))
        policy.sent(at: t0)
        #expect(policy.firstPause(now: t0 + .seconds(10), newestFailureSentAt: nil) == .milliseconds(500))   // old news
    }

    @Test func aSendOldEnoughToHaveFailedAndNotFailedVouchesForTheBatch() {
        var policy = policy
        policy.sent(at: t0)
        #expect(policy.firstPause(now: t0 + .milliseconds(200), newestFailureSentAt: nil) == .milliseconds(500))   // too recent to tell
        #expect(policy.firstPause(now: t0 + .milliseconds(600), newestFailureSentAt: nil) == .milliseconds(5))
        #expect(policy.firstPause(now: t0 + .milliseconds(600), newestFailureSentAt: t0 - .seconds(1)) == .milliseconds(5))
    }

    @Test func aFailureOfARequestSentAfterItRevokesTheVouch() {
        var policy = policy
        policy.sent(at: t0)
        #expect(policy.firstPause(now: t0 + .milliseconds(600), newestFailureSentAt: t0 + .milliseconds(100)) == .milliseconds(500))
    }

    @Test func aSteadilyBusyWorkerOnlyPaysThePace() {
        var policy = policy
        var now = t0
        policy.sent(at: now)
        now += .milliseconds(500)
        for _ in 0..<1_000 {   // a claim every 5 ms for 5 s
            #expect(policy.firstPause(now: now, newestFailureSentAt: nil) == .milliseconds(5))
            policy.sent(at: now)
            now += .milliseconds(5)
        }
    }

    @Test func aZeroWindowNeverWaitsMoreThanThePace() {
        let policy = CanaryPolicy<ContinuousClock.Instant>(window: .zero, pace: .milliseconds(5), chunk: 20)
        #expect(policy.firstPause(now: t0, newestFailureSentAt: nil) == .milliseconds(5))
    }
}
