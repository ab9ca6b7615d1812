import ClockTesting
import Testing
import Worker

/// The pacing rules of one process's share of a fleet budget, on a manual clock.
@Suite("Rate budget pacing: small batches from the database, let out evenly")
struct RateBudgetPacerTests {
    typealias Instant = ManualClock.Instant
    let t0 = Instant(offset: .seconds(100))
    var pacer = RateBudgetPacer<Instant>()

    @Test func nothingHappensWithoutACaller() {
        var pacer = pacer
        #expect(pacer.next(now: t0, waiting: 0) == .idle)
    }

    @Test func theFirstTakeAsksForOneTokenToLearnTheRate() {
        var pacer = pacer
        #expect(pacer.next(now: t0, waiting: 30) == .take(1))
    }

    @Test func laterTakesAskForABatchWindowOfTokensAtMostAndNoMoreThanAreWaiting() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 30)
        pacer.granted(1, ratePerSecond: 50, wait: .zero, now: t0)
        #expect(pacer.next(now: t0, waiting: 30) == .release)
        #expect(pacer.next(now: t0 + .milliseconds(20), waiting: 30) == .take(5))   // 100 ms at 50/s
        #expect(pacer.maximumBatch == 5)
        var other = RateBudgetPacer<Instant>()
        _ = other.next(now: t0, waiting: 1)
        other.granted(1, ratePerSecond: 50, wait: .zero, now: t0)
        _ = other.next(now: t0, waiting: 1)
        #expect(other.next(now: t0 + .milliseconds(20), waiting: 2) == .take(2))
    }

    @Test func aBatchIsLetOutOneRequestPerRateIntervalNotAllAtOnce() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 10)
        pacer.granted(1, ratePerSecond: 50, wait: .zero, now: t0)
        #expect(pacer.next(now: t0, waiting: 10) == .release)
        let t1 = t0 + .milliseconds(20)
        #expect(pacer.next(now: t1, waiting: 9) == .take(5))
        pacer.granted(5, ratePerSecond: 50, wait: .zero, now: t1)
        #expect(pacer.next(now: t1, waiting: 9) == .release)
        #expect(pacer.next(now: t1, waiting: 8) == .wait(until: t1 + .milliseconds(20)))
        #expect(pacer.next(now: t1 + .milliseconds(20), waiting: 8) == .release)
        #expect(pacer.stock == 3)
    }

    @Test func aLateWakeUpCatchesUpOneIntervalButNeverBursts() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 10)
        pacer.granted(5, ratePerSecond: 50, wait: .zero, now: t0)
        #expect(pacer.next(now: t0, waiting: 10) == .release)
        let late = t0 + .milliseconds(70)   // due at +20, woke at +70
        #expect(pacer.next(now: late, waiting: 9) == .release)
        #expect(pacer.next(now: late, waiting: 8) == .release)   // one interval of catch-up
        #expect(pacer.next(now: late, waiting: 7) == .wait(until: late + .milliseconds(20)))
    }

    @Test func aRefusedTakeWaitsWhatTheDatabaseSaidPlusJitter() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 3)
        pacer.granted(0, ratePerSecond: 50, wait: .milliseconds(13), jitter: .milliseconds(2), now: t0)
        #expect(pacer.next(now: t0, waiting: 3) == .wait(until: t0 + .milliseconds(15)))
        #expect(pacer.next(now: t0 + .milliseconds(15), waiting: 3) == .take(3))
    }

    @Test func aRefusedTakeWaitsAtLeastTheMinimumInterval() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 3)
        pacer.granted(0, ratePerSecond: 50, wait: .zero, now: t0)
        #expect(pacer.next(now: t0, waiting: 3) == .wait(until: t0 + .milliseconds(2)))
    }

    @Test func aPartialGrantIsSpentAndTheNextTakeWaitsForTheNextToken() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 1)
        pacer.granted(1, ratePerSecond: 50, wait: .zero, now: t0)
        _ = pacer.next(now: t0, waiting: 1)
        #expect(pacer.next(now: t0 + .milliseconds(20), waiting: 5) == .take(5))
        pacer.granted(2, ratePerSecond: 50, wait: .milliseconds(60), now: t0 + .milliseconds(20))
        #expect(pacer.next(now: t0 + .milliseconds(20), waiting: 5) == .release)
        #expect(pacer.next(now: t0 + .milliseconds(40), waiting: 4) == .release)
        #expect(pacer.next(now: t0 + .milliseconds(60), waiting: 3) == .wait(until: t0 + .milliseconds(80)))
    }

    @Test func tokensHeldPastTheHoldLimitAreDroppedNotBurstLater() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 1)
        pacer.granted(5, ratePerSecond: 50, wait: .zero, now: t0)
        #expect(pacer.next(now: t0, waiting: 1) == .release)
        #expect(pacer.next(now: t0 + .seconds(5), waiting: 0) == .idle)
        #expect(pacer.stock == 0)
        #expect(pacer.next(now: t0 + .seconds(5), waiting: 3) == .take(3))
    }

    @Test func apples429DropsTokensInHandAndTakesNothingUntilThePauseEnds() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 5)
        pacer.granted(5, ratePerSecond: 50, wait: .zero, now: t0)
        pacer.paused(until: t0 + .seconds(3))
        #expect(pacer.stock == 0)
        #expect(pacer.next(now: t0, waiting: 5) == .wait(until: t0 + .seconds(3)))
        #expect(pacer.next(now: t0 + .seconds(3), waiting: 5) == .take(5))
    }

    @Test func aShorterPauseNeverShortensALongerOne() {
        var pacer = pacer
        pacer.paused(until: t0 + .seconds(3))
        pacer.paused(until: t0 + .seconds(1))
        #expect(pacer.next(now: t0 + .seconds(2), waiting: 1) == .wait(until: t0 + .seconds(3)))
    }

    @Test func aFailedTakeBacksOffBeforeTryingTheDatabaseAgain() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 1)
        pacer.takeFailed(now: t0)
        #expect(pacer.next(now: t0 + .milliseconds(500), waiting: 1) == .wait(until: t0 + .seconds(1)))
        #expect(pacer.next(now: t0 + .seconds(1), waiting: 1) == .take(1))
    }

    @Test func aSlowBucketTakesOneTokenAtATime() {
        var pacer = pacer
        _ = pacer.next(now: t0, waiting: 4)
        pacer.granted(1, ratePerSecond: 1, wait: .zero, now: t0)
        #expect(pacer.maximumBatch == 1)
    }
}
