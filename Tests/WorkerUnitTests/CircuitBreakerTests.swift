import Testing
import Worker

/// Real instants are fine here: nothing sleeps, every event carries its time.
typealias Breaker = CircuitBreaker<ContinuousClock.Instant>

@Suite("Circuit breaker: stop claiming while Apple is down")
struct CircuitBreakerTests {
    var configuration: CircuitBreakerConfiguration {
        var configuration = CircuitBreakerConfiguration()
        configuration.failureThreshold = 3
        configuration.openDuration = .seconds(2)
        configuration.maxOpenDuration = .seconds(8)
        return configuration
    }

    @Test func closedBreakerAdmitsEverythingAndOpensAfterARunOfFailures() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0)   // Apple has answered: slow start is over
        #expect(breaker.admit(500, now: t0) == 500)
        breaker.recordFailure(now: t0)
        breaker.recordFailure(now: t0)
        #expect(breaker.admit(500, now: t0) == 500)
        breaker.recordFailure(now: t0)
        #expect(breaker.admit(500, now: t0) == 0)
        #expect(breaker.phase == .open)
    }

    @Test func aNewBreakerLetsOutOnlyAThresholdOfRequestsUntilAppleAnswers() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        #expect(breaker.admit(500, now: t0) == 3)
        #expect(breaker.admit(500, now: t0) == 0)
        breaker.recordSuccess(now: t0, sentAt: t0)
        #expect(breaker.admit(500, now: t0) == 500)
    }

    @Test func aWorkerStartedDuringAnOutageSendsAtMostAThresholdBeforeItOpens() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        var sent = 0
        for _ in 0..<10 {   // claim loops: whatever is admitted fails at once
            let admitted = breaker.admit(2_000, now: t0)
            sent += admitted
            for _ in 0..<admitted { breaker.recordFailure(now: t0, sentAt: t0) }
        }
        #expect(sent == 3)
        #expect(breaker.phase == .open)
    }

    @Test func slowStartGetsBackRoomForRequestsNotSent() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        #expect(breaker.admit(500, now: t0) == 3)
        breaker.notSent(2)   // only one job was waiting
        #expect(breaker.admit(500, now: t0) == 2)
    }

    @Test func slowStartGetsBackRoomForAnswersThatNeitherOpenNorCloseIt() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        #expect(breaker.admit(500, now: t0) == 3)
        // Two fail (fewer than the threshold), the third succeeds but was sent before them (stale).
        breaker.recordFailure(now: t0 + .milliseconds(30), sentAt: t0 + .milliseconds(20))
        breaker.recordFailure(now: t0 + .milliseconds(30), sentAt: t0 + .milliseconds(20))
        breaker.recordSuccess(now: t0 + .milliseconds(40), sentAt: t0 + .milliseconds(10))
        #expect(breaker.phase == .closed)
        #expect(breaker.admit(500, now: t0 + .milliseconds(50)) == 3, "nothing is in flight: slow start must let requests out again")
    }

    @Test func shortFailureStreaksAmongSuccessesKeepItClosed() {
        var breaker = Breaker(configuration: configuration)   // threshold 3, window 6
        let t0 = ContinuousClock.now
        for _ in 0..<20 {   // two failures, four successes, again and again: Apple is mostly fine
            breaker.recordFailure(now: t0)
            breaker.recordFailure(now: t0)
            for _ in 0..<4 { breaker.recordSuccess(now: t0) }
        }
        #expect(breaker.admit(10, now: t0) == 10)
    }

    @Test func afterTheOpenPeriodExactlyOneProbeGoesOut() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(1)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)
        #expect(breaker.admit(100, now: t0 + .seconds(3)) == 0)   // probe in flight: nothing more
        breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(2))
        #expect(breaker.admit(100, now: t0 + .seconds(3)) == 3)   // closed, in slow start
        breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(3))
        #expect(breaker.admit(100, now: t0 + .seconds(4)) == 100)
    }

    @Test func aProbeThatComesBackFineAfterAnOutageBeganLetsOutOnlyAThreshold() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0, sentAt: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)
        breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(2))   // sent before the next outage began, answered after
        var sent = 0
        for step in 0..<10 {   // the outage: everything sent now fails at once
            let now = t0 + .seconds(6) + .milliseconds(100 * step)
            let admitted = breaker.admit(2_000, now: now)
            sent += admitted
            for _ in 0..<admitted { breaker.recordFailure(now: now, sentAt: now) }
        }
        #expect(sent == 3)
    }

    @Test func failedProbesDoubleTheOpenPeriodUpToTheCap() {
        var breaker = Breaker(configuration: configuration)
        var now = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: now) }
        var periods: [Duration] = []
        for _ in 0..<4 {
            if case .open(_, let duration) = breaker.state { periods.append(duration) }
            now += .seconds(60)
            #expect(breaker.admit(10, now: now) == 1)
            breaker.recordFailure(now: now)
        }
        #expect(periods == [.seconds(2), .seconds(4), .seconds(8), .seconds(8)])
    }

    @Test func requestRateDuringALongOutageIsBoundedByTheOpenPeriod() {
        var breaker = Breaker(configuration: configuration)
        let start = ContinuousClock.now
        var sent = 0
        // 10 minutes of outage, the worker asking for 1,000 slots every 10 ms.
        var now = start
        while now < start + .seconds(600) {
            let admitted = breaker.admit(1000, now: now)
            sent += admitted
            for _ in 0..<admitted { breaker.recordFailure(now: now) }
            now += .milliseconds(10)
        }
        // 3 + 1000 (first, before opening is impossible: failures come back one by one here) …
        #expect(sent < 1000 + 600 / 8 + 10)
        #expect(sent > 0)
    }

    @Test func lateSuccessesOfRequestsSentBeforeAnOutageDoNotKeepItClosed() {
        var breaker = Breaker(configuration: configuration)   // threshold 3: window of 6
        let t0 = ContinuousClock.now
        // Old requests still answer while new ones fail: success, failure, success, failure…
        var results = 0
        while breaker.admit(1, now: t0) > 0 && results < 100 {
            if results % 2 == 0 { breaker.recordSuccess(now: t0) } else { breaker.recordFailure(now: t0) }
            results += 1
        }
        #expect(results <= 6)   // open once half of the recent window failed
    }

    @Test func successesOfRequestsSentBeforeANewerFailureDoNotResetTheStreak() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        // An outage begins at t0 + 10 s: requests sent from then on fail at once, while requests
        // sent 3–6 s earlier are still answering, successfully, in between.
        for n in 0..<3 {
            let now = t0 + .seconds(10) + .milliseconds(100 * n)
            breaker.recordFailure(now: now, sentAt: now)
            breaker.recordSuccess(now: t0, sentAt: now - .seconds(4))
            breaker.recordSuccess(now: t0, sentAt: now - .seconds(3))
        }
        #expect(breaker.admit(10, now: t0 + .seconds(11)) == 0)
    }

    @Test func aSuccessSentAfterTheNewestFailureStillResetsTheStreak() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        breaker.recordFailure(now: t0, sentAt: t0)
        breaker.recordFailure(now: t0 + .seconds(1), sentAt: t0 + .seconds(1))
        for _ in 0..<4 { breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(2)) }   // newer requests answered: Apple is up
        breaker.recordFailure(now: t0 + .seconds(3), sentAt: t0 + .seconds(3))
        breaker.recordFailure(now: t0 + .seconds(3), sentAt: t0 + .seconds(3))
        #expect(breaker.admit(10, now: t0 + .seconds(3)) == 10)
    }

    @Test func aProbeNeverAnsweredIsGivenUpAfterTheProbeTimeout() {
        var configuration = self.configuration
        configuration.probeTimeout = .seconds(60)
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)
        #expect(breaker.admit(100, now: t0 + .seconds(61)) == 0)   // its answer may still come
        #expect(breaker.admit(100, now: t0 + .seconds(62)) == 1)   // lost: another probe goes
    }

    @Test func occasionalFailuresAmongSuccessesDoNotOpenIt() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for n in 0..<300 {
            if n % 4 == 0 { breaker.recordFailure(now: t0) } else { breaker.recordSuccess(now: t0) }
        }
        #expect(breaker.admit(10, now: t0) == 10)
    }

    @Test func lateAnswersToRequestsSentBeforeItOpenedDoNotCloseIt() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        let sentBeforeTheOutage = t0 - .seconds(4)
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        breaker.recordSuccess(now: t0, sentAt: sentBeforeTheOutage)   // Apple answered a request from before
        #expect(breaker.admit(100, now: t0 + .milliseconds(100)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)   // the probe
        breaker.recordFailure(now: t0 + .seconds(2), sentAt: sentBeforeTheOutage)   // stale: not the probe's answer
        breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(2))   // the probe's answer: Apple is back
        #expect(breaker.admit(100, now: t0 + .seconds(3)) == 3)   // slow start
        #expect(breaker.phase == .closed)
    }

    @Test func anotherWorkersOutageOpensAClosedBreakerUntilItsOwnProbeAnswers() {
        var breaker = Breaker(configuration: configuration)   // threshold 3, open 2 s
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0, sentAt: t0 - .seconds(5))
        #expect(breaker.admit(500, now: t0) == 500)
        let opened = breaker.recordFleetOutage(now: t0)
        #expect(opened)
        #expect(breaker.admit(500, now: t0 + .seconds(1)) == 0)   // nothing claimed, not even 3
        breaker.recordSuccess(now: t0, sentAt: t0 - .seconds(3))   // its own requests from before: stale
        #expect(breaker.admit(500, now: t0 + .seconds(1)) == 0)
        #expect(breaker.admit(500, now: t0 + .seconds(2)) == 1)   // its own probe
        breaker.recordSuccess(now: t0, sentAt: t0 + .seconds(2))
        #expect(breaker.admit(500, now: t0 + .seconds(3)) == 3)   // closed, in slow start
    }

    @Test func anotherWorkersOutageLeavesAnOpenOrProbingBreakerOnItsOwnSchedule() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        let openedWhileOpen = breaker.recordFleetOutage(now: t0 + .seconds(1))
        #expect(!openedWhileOpen)
        #expect(breaker.admit(10, now: t0 + .seconds(2)) == 1)   // the probe is not pushed back
        let openedWhileProbing = breaker.recordFleetOutage(now: t0 + .seconds(2))
        #expect(!openedWhileProbing)
        #expect(breaker.admit(10, now: t0 + .seconds(2)) == 0)
        breaker.recordFailure(now: t0 + .seconds(3), sentAt: t0 + .seconds(2))
        if case .open(_, let duration) = breaker.state { #expect(duration == .seconds(4)) } else { Issue.record("not open") }
    }

    @Test func probeThatFoundNothingToClaimLetsAnotherGo() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        #expect(breaker.admit(10, now: t0 + .seconds(3)) == 1)
        breaker.notSent(1)
        #expect(breaker.admit(10, now: t0 + .seconds(3)) == 1)
    }
}
