import Testing
import Worker

@Suite("Canaries: a backlog after a lull waits for its first requests to fail")
struct CanaryPolicyTests {
    let t0 = ContinuousClock.now
    var policy: CanaryPolicy { CanaryPolicy(window: .milliseconds(500), canaries: 20) }

    @Test func aWorkerThatSentNothingLatelySendsOnlyTheCanariesOfALargeBatch() {
        var policy = policy
        #expect(policy.sendNow(batch: 500, now: t0, newestFailureSentAt: nil) == 20)
        policy.sent(at: t0)
        #expect(policy.sendNow(batch: 500, now: t0 + .seconds(10), newestFailureSentAt: nil) == 20)   // that send is old news
    }

    @Test func aSmallBatchAlwaysGoesWhole() {
        #expect(policy.sendNow(batch: 20, now: t0, newestFailureSentAt: nil) == 20)
        #expect(policy.sendNow(batch: 3, now: t0, newestFailureSentAt: nil) == 3)
    }

    @Test func aSendOldEnoughToHaveFailedAndNotFailedVouchesForTheWholeBatch() {
        var policy = policy
        policy.sent(at: t0)
        #expect(policy.sendNow(batch: 500, now: t0 + .milliseconds(200), newestFailureSentAt: nil) == 20)   // too recent to tell
        #expect(policy.sendNow(batch: 500, now: t0 + .milliseconds(600), newestFailureSentAt: nil) == 500)
        #expect(policy.sendNow(batch: 500, now: t0 + .milliseconds(600), newestFailureSentAt: t0 - .seconds(1)) == 500)
    }

    @Test func aFailureOfARequestSentAfterItRevokesTheVouch() {
        var policy = policy
        policy.sent(at: t0)
        #expect(policy.sendNow(batch: 500, now: t0 + .milliseconds(600), newestFailureSentAt: t0 + .milliseconds(100)) == 20)
    }

    @Test func aSteadilyBusyWorkerNeverWaits() {
        var policy = policy
        var now = t0
        policy.sent(at: now)
        now += .milliseconds(500)
        for _ in 0..<1_000 {   // a claim every 5 ms for 5 s
            #expect(policy.sendNow(batch: 100, now: now, newestFailureSentAt: nil) == 100)
            policy.sent(at: now)
            now += .milliseconds(5)
        }
    }

    @Test func aZeroWindowSendsEverythingAtOnce() {
        let policy = CanaryPolicy(window: .zero, canaries: 20)
        #expect(policy.sendNow(batch: 500, now: t0, newestFailureSentAt: nil) == 500)
    }
}
