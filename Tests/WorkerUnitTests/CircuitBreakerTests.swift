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
        configuration.slowStartCeiling = 6   // one success ends slow start (its own tests set more)
        return configuration
    }

    /// By default a worker probes every 2 s while Apple is down, failed probes or not: the chaos
    /// suite's bound, and a fleet hears of Apple's return within 2 s.
    @Test func byDefaultAFailedProbeIsFollowedByTheNextTwoSecondsLater() {
        var breaker = Breaker()
        let t0 = ContinuousClock.now
        let opened = breaker.recordFleetOutage(now: t0)
        #expect(opened)
        #expect(breaker.admit(100, now: t0 + .milliseconds(1_999)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)   // the probe
        breaker.recordFailure(now: t0 + .seconds(2), sentAt: t0 + .seconds(2))
        #expect(breaker.admit(100, now: t0 + .milliseconds(3_999)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(4)) == 1)   // not at 6 s
        breaker.recordFailure(now: t0 + .seconds(4), sentAt: t0 + .seconds(4))
        #expect(breaker.admit(100, now: t0 + .seconds(6)) == 1)
    }

    /// Requests admitted before the breaker opened and never sent give slow start its room back,
    /// but not the probe's slot: the rate into an outage stays one request per open period.
    @Test func requestsAdmittedAndNeverSentLeaveTheProbeInFlightAlone() {
        var breaker = Breaker(configuration: configuration)   // threshold 3, open 2 s
        let t0 = ContinuousClock.now
        #expect(breaker.admit(100, now: t0) == 3)              // slow start: a threshold
        breaker.sent(3, now: t0)
        for _ in 0..<3 { breaker.recordFailure(now: t0, sentAt: t0) }
        #expect(breaker.phase == .open)
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)   // the probe
        breaker.admittedNotSent(5)                              // late tasks of the era that ended
        #expect(breaker.admit(100, now: t0 + .seconds(3)) == 0, "a second probe within the open period")
        #expect(breaker.admit(100, now: t0 + .seconds(4)) == 1)   // the next, an open period later
    }

    @Test func closedBreakerAdmitsEverythingAndOpensWhenMostOfWhatItSentFails() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0)   // Apple has answered: slow start is over
        #expect(breaker.admit(500, now: t0) == 500)
        breaker.sent(4, now: t0)
        breaker.recordFailure(now: t0, sentAt: t0)
        breaker.recordFailure(now: t0, sentAt: t0)
        #expect(breaker.admit(500, now: t0) == 500)
        breaker.recordFailure(now: t0, sentAt: t0)   // three of the four sent failed
        #expect(breaker.admit(500, now: t0) == 0)
        #expect(breaker.phase == .open)
    }

    @Test func aFewFastFailuresAmongManyRequestsSentAreNotAnOutage() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0)
        breaker.sent(500, now: t0)
        for _ in 0..<100 { breaker.recordFailure(now: t0 + .milliseconds(5), sentAt: t0) }   // 20%, back at once
        #expect(breaker.phase == .closed)
        for _ in 0..<200 { breaker.recordFailure(now: t0 + .milliseconds(10), sentAt: t0) }  // 60%: still not down
        #expect(breaker.phase == .closed)
        // Apple goes down: the 20 requests sent next all fail at once.
        breaker.sent(20, now: t0 + .milliseconds(200))
        for _ in 0..<20 { breaker.recordFailure(now: t0 + .milliseconds(205), sentAt: t0 + .milliseconds(200)) }
        #expect(breaker.phase == .open)
    }

    @Test func aLaterChunkSentBeforeTheFirstOnesFailuresCameBackDoesNotHideThem() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0)
        breaker.sent(3, now: t0)                             // the first chunk, into an outage
        breaker.sent(3, now: t0 + .milliseconds(300))        // the next, before any answer
        for _ in 0..<3 { breaker.recordFailure(now: t0 + .milliseconds(400), sentAt: t0) }
        // Of the newest 3 sent nothing failed yet, but every request sent by the first chunk did.
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

    @Test func slowStartGetsBackRoomForFailuresThatDoNotOpenIt() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        #expect(breaker.admit(500, now: t0) == 3)
        // Two fail (fewer than the threshold): they are no longer outstanding.
        breaker.recordFailure(now: t0 + .milliseconds(30), sentAt: t0 + .milliseconds(20))
        breaker.recordFailure(now: t0 + .milliseconds(30), sentAt: t0 + .milliseconds(20))
        #expect(breaker.phase == .closed)
        #expect(breaker.admit(500, now: t0 + .milliseconds(50)) == 2, "one is still outstanding: slow start must let two out again")
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

    @Test func failuresInterleavedWithSuccessesAreDegradedNotDown() {
        var breaker = Breaker(configuration: configuration)   // threshold 3, window 12
        let t0 = ContinuousClock.now
        // Three requests go out every 100 ms; one fails at once, while successes of requests sent
        // seconds ago keep arriving. At a steady share of one in three, Apple is degraded, not
        // down. (An earlier rule ignored such successes as stale and opened.)
        for n in 0..<30 {
            let now = t0 + .seconds(10) + .milliseconds(100 * n)
            breaker.sent(breaker.admit(3, now: now), now: now)
            breaker.recordFailure(now: now, sentAt: now)
            breaker.recordSuccess(now: now, sentAt: now - .seconds(4))
            breaker.recordSuccess(now: now, sentAt: now - .seconds(3))
        }
        #expect(breaker.admit(10, now: t0 + .seconds(14)) == 10)
    }

    @Test func slowFailuresOpenItWhenTheyOutnumberRecentSuccesses() {
        var breaker = Breaker(configuration: configuration)   // threshold 3, window 12
        let t0 = ContinuousClock.now
        breaker.recordSuccess(now: t0)
        // An outage whose failures take Apple's usual latency (a page served after 4 s, timeouts):
        // old successes still arrive, then stop.
        for n in 0..<6 {
            let now = t0 + .seconds(10) + .milliseconds(100 * n)
            breaker.recordFailure(now: now, sentAt: now - .seconds(4))
            if n < 2 { breaker.recordSuccess(now: now, sentAt: now - .seconds(4)) }
        }
        #expect(breaker.phase == .open)
    }

    @Test func successesOfTheNewestRequestsKeepItClosed() {
        var breaker = Breaker(configuration: configuration)   // threshold 3
        let t0 = ContinuousClock.now
        breaker.sent(2, now: t0)
        breaker.recordFailure(now: t0, sentAt: t0)
        breaker.recordFailure(now: t0 + .seconds(1), sentAt: t0)
        breaker.sent(4, now: t0 + .seconds(2))
        for _ in 0..<4 { breaker.recordSuccess(now: t0 + .seconds(2), sentAt: t0 + .seconds(2)) }   // newer requests answered: Apple is up
        breaker.sent(2, now: t0 + .seconds(3))
        breaker.recordFailure(now: t0 + .seconds(3), sentAt: t0 + .seconds(3))
        breaker.recordFailure(now: t0 + .seconds(3), sentAt: t0 + .seconds(3))
        #expect(breaker.admit(10, now: t0 + .seconds(3)) == 10)
    }

    /// Apple's answers take 3–6 s: a probe waiting for its predecessor's answer left a worker
    /// back from an outage asking nothing for that long. The rate into an outage stays one per
    /// open period.
    @Test func whileAProbeIsUnansweredAnotherGoesEachOpenPeriodNeverFaster() {
        var breaker = Breaker(configuration: configuration)   // open period 2 s
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)
        #expect(breaker.admit(100, now: t0 + .milliseconds(3_999)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(4)) == 1)
        #expect(breaker.admit(100, now: t0 + .seconds(5)) == 0)
        #expect(breaker.admit(100, now: t0 + .seconds(6)) == 1)
        #expect(breaker.phase == .halfOpen)
    }

    /// Apple is back but degraded: the first probe meets a 21005 and re-opens the breaker; the
    /// probe sent after it (during the same outage) is answered and closes it — no open period
    /// and third round trip to wait for.
    @Test func aFailedProbeReopensItButALaterProbesAnswerStillClosesIt() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)   // probe A
        #expect(breaker.admit(100, now: t0 + .seconds(4)) == 1)   // probe B, A still out
        breaker.recordFailure(now: t0 + .seconds(6), sentAt: t0 + .seconds(2))   // A: a 21005
        #expect(breaker.phase == .open)
        breaker.recordSuccess(now: t0 + .seconds(7), sentAt: t0 + .seconds(4))   // B: valid
        #expect(breaker.phase == .closed)
        #expect(breaker.admit(100, now: t0 + .seconds(7)) == 3)   // in slow start
    }

    /// A request sent before the outage began says nothing about Apple now, however many probes
    /// failed since.
    @Test func answersSentBeforeTheFirstOpeningStayStaleAfterFailedProbes() {
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        for _ in 0..<3 { breaker.recordFailure(now: t0, sentAt: t0) }
        #expect(breaker.admit(100, now: t0 + .seconds(2)) == 1)
        breaker.recordFailure(now: t0 + .seconds(2), sentAt: t0 + .seconds(2))   // the probe failed
        breaker.recordSuccess(now: t0 + .seconds(3), sentAt: t0 - .seconds(1))   // sent before the outage
        #expect(breaker.phase == .open)
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

    @Test func slowStartGrowsSixteenfoldPerRoundTripUpToItsCeiling() {
        var configuration = self.configuration
        configuration.failureThreshold = 20
        configuration.slowStartCeiling = 320
        var breaker = Breaker(configuration: configuration)
        let t0 = ContinuousClock.now
        var windows: [Int] = []
        for trip in 0..<4 {   // each round trip, everything outstanding comes back fine
            let now = t0 + .seconds(5 * trip)
            let admitted = breaker.admit(5_000, now: now)
            windows.append(admitted)
            for _ in 0..<admitted { breaker.recordSuccess(now: now + .seconds(4), sentAt: now) }
        }
        #expect(windows == [20, 5_000, 5_000, 5_000], "full rate from the second round trip")
        #expect(breaker.slowStartWindow == nil)
    }

    /// Apple back but degraded: three of the first twenty meet a 21005. The seventeen answered
    /// well are proof enough; waiting for all twenty (a ceiling of 320) left slow start to the
    /// second round's answers, a round trip at ~290 of 500 slots.
    @Test func aDegradedFirstRoundStillEndsSlowStartUnderTheDefaults() {
        var breaker = Breaker()   // production defaults
        let t0 = ContinuousClock.now
        let first = breaker.admit(500, now: t0)
        #expect(first == 20)
        breaker.sent(first, now: t0)
        for index in 0..<first {
            let answeredAt = t0 + .milliseconds(3_000 + 150 * index)
            if index % 7 == 3 {
                breaker.recordFailure(now: answeredAt, sentAt: t0)
            } else {
                breaker.recordSuccess(now: answeredAt, sentAt: t0)
            }
        }
        #expect(breaker.isClosed)
        #expect(breaker.slowStartWindow == nil, "full rate after the first round")
        #expect(breaker.admit(5_000, now: t0 + .seconds(7)) == 5_000)
    }

    @Test func slowStartEndsOnceTenOfTheFirstTwentyAnsweredWell() {
        var breaker = Breaker()   // production defaults
        let t0 = ContinuousClock.now
        breaker.sent(breaker.admit(500, now: t0), now: t0)
        for index in 0..<9 { breaker.recordSuccess(now: t0 + .milliseconds(3_000 + 10 * index), sentAt: t0) }
        #expect(breaker.slowStartWindow == 20 + 9 * 15)
        breaker.recordSuccess(now: t0 + .seconds(4), sentAt: t0)
        #expect(breaker.slowStartWindow == nil)
    }

    @Test func aHealthyFleetSkipsSlowStartAndAColdOneKeepsIt() {
        var cold = Breaker(configuration: configuration)
        #expect(cold.admit(500, now: ContinuousClock.now) == 3)
        var warm = Breaker(configuration: configuration)
        let skipped = warm.recordFleetHealthy()
        #expect(skipped)
        #expect(warm.admit(500, now: ContinuousClock.now) == 500)
        let again = warm.recordFleetHealthy()
        #expect(!again, "already at full rate")
    }

    /// A worker at 500 in flight against a simulated Apple: successes answer in 3–6 s, failures
    /// (503s) at once. `failureShare` of requests fail; from `outageAt` on, all do.
    struct Simulation {
        var opened: [Duration] = []
        var firstAttempts = 0
        var sentInOutageBeforeOpen = 0

        init(failureShare: Double, outageAt: Duration? = nil, seconds: Int = 60) {
            var configuration = CircuitBreakerConfiguration()   // production defaults
            configuration.slowStartCeiling = 20                 // already warm
            var breaker = Breaker(configuration: configuration)
            var random = SplitMix(seed: 42)
            let t0 = ContinuousClock.now
            var inFlight: [(answerAt: ContinuousClock.Instant, sentAt: ContinuousClock.Instant, fails: Bool)] = []
            var now = t0
            var wasOpen = false
            while now < t0 + .seconds(seconds) {
                let inOutage = outageAt.map { now >= t0 + $0 } ?? false
                let due = inFlight.filter { $0.answerAt <= now }
                inFlight.removeAll { $0.answerAt <= now }
                for answer in due {
                    if answer.fails { breaker.recordFailure(now: now, sentAt: answer.sentAt) } else { breaker.recordSuccess(now: now, sentAt: answer.sentAt) }
                }
                let admitted = breaker.admit(max(0, 500 - inFlight.count), now: now)
                breaker.sent(admitted, now: now)
                for _ in 0..<admitted {
                    let fails = inOutage || random.unit() < failureShare
                    let latency: Duration = fails ? .milliseconds(5) : .milliseconds(3_000 + Int(random.unit() * 3_000))
                    inFlight.append((now + latency, now, fails))
                    firstAttempts += 1
                    if inOutage && !wasOpen && opened.isEmpty { sentInOutageBeforeOpen += 1 }
                }
                let isOpen = breaker.phase != .closed
                if isOpen && !wasOpen { opened.append(now - t0) }
                wasOpen = isOpen
                now += .milliseconds(10)
            }
        }
    }

    @Test("degraded Apple (16% fast failures at 500 in flight) never opens it; an outage opens it within a second")
    func degradedIsNotDown() {
        let healthy = Simulation(failureShare: 0)
        let degraded = Simulation(failureShare: 0.16)
        #expect(degraded.opened.isEmpty, "opened at \(degraded.opened)")
        // Failures free their slots at once, so a degraded worker sends more, never less.
        #expect(Double(degraded.firstAttempts) >= 0.9 * Double(healthy.firstAttempts))
        let twenty = Simulation(failureShare: 0.2)
        #expect(twenty.opened.isEmpty, "opened at \(twenty.opened)")

        let outage = Simulation(failureShare: 0.05, outageAt: .seconds(20), seconds: 30)
        let first = outage.opened.first
        #expect(first.map { $0 >= .seconds(20) && $0 < .seconds(21) } == true, "opened at \(outage.opened)")
        #expect(outage.sentInOutageBeforeOpen <= 200, "\(outage.sentInOutageBeforeOpen) requests sent into the outage before it opened")
    }
}

/// A tiny seeded generator: the simulations are the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
