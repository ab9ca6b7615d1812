import AppStore
import ClockTesting
import ReceiptQueue
import Testing
@testable import Worker

/// The worker's decisions on a manual clock: outages, fleet notices, canaries, pauses and alerts,
/// each staged in microseconds instead of the seconds the real-time tests need.
@Suite("Worker gate: what the worker decides, on a test clock")
struct WorkerGateTests {
    typealias Gate = WorkerGate<ManualClock.Instant>
    let clock = ManualClock()

    /// The production breaker, but with a one-round-trip slow start: these tests are about the
    /// gate (the breaker's own tests cover the exponential one).
    func gate(name: String = "w1", concurrency: Int = 2000, canaryWindow: Duration = .milliseconds(500)) -> Gate {
        var breaker = CircuitBreakerConfiguration()
        breaker.slowStartCeiling = 21
        return Gate(configuration: .init(name: name, concurrency: concurrency, maxClaimBatch: 500, configurationErrorPause: .seconds(60),
                                         breaker: breaker, canaryWindow: canaryWindow, sendPace: .milliseconds(5)))
    }

    /// Apple answered with JSON (a definite answer, good or bad: not Apple trouble).
    static let answered = VerificationResult(outcome: .reject(.notAuthentic), environment: .production, latency: .seconds(4), calls: 1)
    static let refused = VerificationResult(outcome: .retryLater(.network("refused")), environment: .production, latency: .zero, calls: 1)

    @Test func admissionIsTheFreeSlotsAtMostABatch() {
        var gate = gate(concurrency: 700)
        _ = gate.claimed(20, of: 20, now: clock.now)                // slow start: 20 before Apple answers
        for _ in 0..<20 { _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now) }
        #expect(gate.slotsToClaim(now: clock.now) == 500)
        _ = gate.claimed(500, of: 500, now: clock.now)
        #expect(gate.slotsToClaim(now: clock.now) == 200)
        _ = gate.claimed(200, of: 200, now: clock.now)
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        #expect(gate.inFlight == 700)
        gate.stop()
        for _ in 0..<100 { _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now) }
        #expect(gate.slotsToClaim(now: clock.now) == 0)   // stopping: never again
    }

    @Test func receiptsRejectedLocallyGiveTheirAdmissionBackSoGarbageNeverStallsClaims() {
        var gate = gate()
        #expect(gate.slotsToClaim(now: clock.now) == 20)    // slow start: Apple has answered nothing yet
        _ = gate.claimed(20, of: 20, now: clock.now)
        for _ in 0..<20 { gate.decidedLocally() }          // all garbage: Apple never asked
        #expect(gate.inFlight == 0)
        #expect(gate.slotsToClaim(now: clock.now) == 20)    // still in slow start, and not stuck at 0
    }

    @Test func aNewWorkerSendsAtMostAThresholdUntilAppleAnswersOne() {
        var gate = gate()
        #expect(gate.slotsToClaim(now: clock.now) == 20)
        _ = gate.claimed(20, of: 20, now: clock.now)
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now + .seconds(4))
        #expect(gate.slotsToClaim(now: clock.now) == 500)
    }

    @Test func aWorkerStartedIntoAFleetThatHeardFromAppleStartsAtFullRate() {
        var gate = gate()
        let skipped = gate.fleetAnswered(.production)
        #expect(skipped)
        #expect(gate.slotsToClaim(now: clock.now) == 500)
        var cold = self.gate()
        #expect(cold.slotsToClaim(now: clock.now) == 20, "a cold fleet keeps slow start")
    }

    @Test func aRunOfFailuresOpensTheBreakerAndTellsTheFleetOnceNotForEachFailedProbe() {
        var gate = gate()
        _ = gate.claimed(20, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        var actions: [Gate.Report] = []
        for _ in 0..<20 { actions += gate.finished(Self.refused, sentAt: clock.now, now: clock.now) }
        #expect(actions == [.breakerMoved(.production, .open, reportedBy: nil), .announceOutage(.production)])
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        // Each open period lets one probe out; a failed probe re-opens without a new notice.
        for period in [2, 4, 8] {
            clock.advance(by: .seconds(period))
            #expect(gate.slotsToClaim(now: clock.now) == 1)
            #expect(gate.slotsToClaim(now: clock.now) == 0)
            _ = gate.claimed(1, of: 1, now: clock.now)
            let probe = gate.finished(Self.refused, sentAt: clock.now, now: clock.now)
            #expect(probe == [.breakerMoved(.production, .open, reportedBy: nil)])   // half-open → open, no notice
        }
    }

    @Test func anotherWorkersNoticeOpensAClosedBreakerUntilItsOwnProbe() {
        var gate = gate()
        let notice = OutageNotice(environment: "Production", worker: "w2")
        #expect(gate.heard(notice, now: clock.now) == [.breakerMoved(.production, .open, reportedBy: "w2")])
        #expect(gate.heard(notice, now: clock.now).isEmpty)   // already open: nothing new
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        clock.advance(by: .seconds(2))
        #expect(gate.slotsToClaim(now: clock.now) == 1)       // then it probes on its own
        _ = gate.claimed(1, of: 1, now: clock.now)
        _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now + .seconds(4))
        #expect(gate.phase(.production) == .closed)
    }

    @Test func aWorkerIgnoresItsOwnNoticeAndNoticesItCannotRead() {
        var gate = gate(name: "w1")
        #expect(gate.heard(OutageNotice(environment: "Production", worker: "w1"), now: clock.now).isEmpty)
        #expect(gate.heard(OutageNotice(environment: "Mars", worker: "w2"), now: clock.now).isEmpty)
        #expect(gate.phase(.production) == .closed)
    }

    @Test func aClaimThatCameBackAfterTheBreakerOpenedIsReleasedUnsent() {
        var gate = warmedUp()
        let wanted = gate.slotsToClaim(now: clock.now)
        _ = gate.heard(OutageNotice(environment: "Production", worker: "w2"), now: clock.now)   // while the claim ran
        #expect(gate.claimed(300, of: wanted, now: clock.now) == .releaseAll)
        gate.released(300)
        #expect(gate.inFlight == 0)
    }

    @Test func afterALullABacklogWaitsTheCanaryWindowAndStopsWhenItsCanariesFail() {
        var gate = warmedUp()
        clock.advance(by: .seconds(10))   // a lull: nothing sent for 10 s
        let wanted = gate.slotsToClaim(now: clock.now)
        guard case .chunks(20, let pause, _) = gate.claimed(200, of: wanted, now: clock.now) else {
            Issue.record("expected chunks of 20"); return
        }
        #expect(pause == .milliseconds(500))
        gate.sendingChunk(20, now: clock.now)
        let sent = clock.now
        clock.advance(by: .milliseconds(30))   // Apple is down: the canaries fail fast
        var actions: [Gate.Report] = []
        for _ in 0..<20 { actions += gate.finished(Self.refused, sentAt: sent, now: clock.now) }
        clock.advance(by: .milliseconds(470))
        #expect(!gate.maySendMore)            // the other 180 are released, never sent
        #expect(actions.contains(.announceOutage(.production)))
    }

    @Test func aBusyWorkerOnlyPaysThePaceBetweenChunks() {
        var gate = warmedUp()
        gate.sendingChunk(20, now: clock.now)             // sent a moment ago, not failed since
        clock.advance(by: .milliseconds(700))
        let wanted = gate.slotsToClaim(now: clock.now)
        #expect(gate.claimed(200, of: wanted, now: clock.now) == .chunks(of: 20, firstPause: .milliseconds(5), pace: .milliseconds(5)))
    }

    static let secretRefused = VerificationResult(outcome: .configurationError(.sharedSecretMismatch), environment: .production,
                                                  latency: .seconds(4), calls: 1)

    @Test func oneReceiptAnswered21004NeverPausesAnything() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        // The same job, answered 21004 again and again (another app's receipt, say): logged, never a pause.
        var actions: [Gate.Report] = []
        for _ in 0..<10 {
            actions += gate.finished(Self.secretRefused, job: 7, sentAt: clock.now, now: clock.now)
            clock.advance(by: .seconds(11))
        }
        #expect(!actions.contains(.configurationErrorPause(.seconds(60))))
        #expect(actions.contains(.secretRefused(job: 7, heldBack: 0)))
        #expect(gate.slotsToClaim(now: clock.now) > 0)
    }

    @Test func fiveJobsAnswered21004WithinAMinutePauseThenProbeOneAtATime() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        for job in 1...4 { #expect(!gate.finished(Self.secretRefused, job: Int64(job), sentAt: clock.now, now: clock.now)
            .contains(.configurationErrorPause(.seconds(60)))) }
        #expect(gate.finished(Self.secretRefused, job: 5, sentAt: clock.now, now: clock.now) == [.configurationErrorPause(.seconds(60))])
        for _ in 0..<5 { _ = gate.finished(Self.answered, job: 99, sentAt: clock.now - .seconds(10), now: clock.now) }   // in flight before
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        clock.advance(by: .seconds(60))
        #expect(gate.slotsToClaim(now: clock.now) == 1)                 // one receipt at a time …
        _ = gate.claimed(1, of: 1, now: clock.now)
        #expect(gate.slotsToClaim(now: clock.now) == 0)
        _ = gate.finished(Self.answered, job: 6, sentAt: clock.now, now: clock.now)   // … until Apple accepts the secret
        #expect(gate.slotsToClaim(now: clock.now) == 500)
    }

    /// Five jobs of a claim batch answered 21004: the pause begins.
    func pausedFor21004(_ gate: inout Gate) {
        for job in 1...5 { _ = gate.finished(Self.secretRefused, job: Int64(job), sentAt: clock.now, now: clock.now) }
    }

    @Test func aClaimStillRunningWhenA21004PauseBeginsSendsNothing() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        let wanted = gate.slotsToClaim(now: clock.now)               // a second claim goes to the database …
        pausedFor21004(&gate)                                         // … and the pause begins meanwhile
        #expect(gate.claimed(7, of: wanted, now: clock.now) == .releaseAll)
    }

    @Test func aRequestAdmittedBeforeA21004PauseIsNotSentAfterIt() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        let admitted = gate.era
        #expect(gate.maySend(admittedIn: admitted))
        pausedFor21004(&gate)
        #expect(!gate.maySend(admittedIn: admitted))                 // its task started late: released, never sent
        #expect(!gate.maySendMore)
        clock.advance(by: .seconds(60))
        _ = gate.claimed(1, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        #expect(gate.maySend(admittedIn: gate.era))                   // the probe after the pause goes
    }

    @Test func noHedgesDuringA21004Pause() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        #expect(gate.mayHedge)
        pausedFor21004(&gate)
        #expect(!gate.mayHedge)
    }

    @Test func aRequestAdmittedBeforeTheBreakerOpensOrTheWorkerStopsIsNotSent() {
        var opened = warmedUp()
        _ = opened.claimed(10, of: opened.slotsToClaim(now: clock.now), now: clock.now)
        let beforeNotice = opened.era
        _ = opened.heard(OutageNotice(environment: "Production", worker: "w2"), now: clock.now)
        #expect(!opened.maySend(admittedIn: beforeNotice))
        #expect(!opened.mayHedge)

        var sandboxOnly = warmedUp()
        let era = sandboxOnly.era
        _ = sandboxOnly.heard(OutageNotice(environment: "Sandbox", worker: "w2"), now: clock.now)
        #expect(sandboxOnly.maySend(admittedIn: era))                // production's requests still go

        var stopping = warmedUp()
        _ = stopping.claimed(10, of: stopping.slotsToClaim(now: clock.now), now: clock.now)
        let beforeStop = stopping.era
        stopping.stop()
        #expect(!stopping.maySend(admittedIn: beforeStop))
    }

    @Test func jobsAnswered21004MinutesApartDoNotAddUp() {
        var gate = warmedUp()
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        for job in 1...10 {
            #expect(!gate.finished(Self.secretRefused, job: Int64(job), sentAt: clock.now, now: clock.now)
                .contains(.configurationErrorPause(.seconds(60))))
            clock.advance(by: .seconds(20))
        }
    }

    @Test func alertsAreLoggedAtMostEveryTenSecondsWithTheCountHeldBack() {
        var gate = warmedUp()
        let unknown = VerificationResult(outcome: .retryLater(.unknownStatus(21999)), environment: .production, latency: .seconds(4), calls: 1)
        _ = gate.claimed(10, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        #expect(gate.finished(unknown, sentAt: clock.now, now: clock.now) == [.alert(.unknownStatus(21999), heldBack: 0)])
        for _ in 0..<3 { #expect(gate.finished(unknown, sentAt: clock.now, now: clock.now).isEmpty) }
        clock.advance(by: .seconds(10))
        #expect(gate.finished(unknown, sentAt: clock.now, now: clock.now) == [.alert(.unknownStatus(21999), heldBack: 3)])
    }

    @Test func aSandboxReceiptAsProductionsProbeClosesProductionsBreaker() {
        var gate = gate()
        _ = gate.heard(OutageNotice(environment: "Production", worker: "w2"), now: clock.now)
        clock.advance(by: .seconds(2))
        _ = gate.claimed(1, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        let sandbox = VerificationResult(outcome: .reject(.notAuthentic), environment: .sandbox, latency: .seconds(8), calls: 2)
        let actions = gate.finished(sandbox, sentAt: clock.now, now: clock.now + .seconds(8))
        #expect(actions.contains(.breakerMoved(.production, .closed, reportedBy: nil)))
        #expect(gate.phase(.production) == .closed)
    }

    /// The fleet test that takes 11–20 s in real time (FleetOutageTests), in microseconds: three
    /// workers, Apple refuses connections; the first worker to see it opens its breaker and
    /// tells the others, who then send nothing until their own probes.
    @Test func oneWorkersOutageKeepsTheWholeFleetToOneProbePerPeriod() {
        var fleet = ["w1", "w2", "w3"].map { name -> Gate in
            var gate = gate(name: name)
            _ = gate.claimed(20, of: gate.slotsToClaim(now: clock.now), now: clock.now)
            for _ in 0..<20 { _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now) }
            return gate
        }
        clock.advance(by: .seconds(1))
        // w1 claims a batch into the outage; its canaries fail and it tells the others.
        var notices: [OutageNotice] = []
        let wanted = fleet[0].slotsToClaim(now: clock.now)
        _ = fleet[0].claimed(20, of: wanted, now: clock.now)
        for _ in 0..<20 {
            for action in fleet[0].finished(Self.refused, sentAt: clock.now, now: clock.now) {
                if case .announceOutage(let environment) = action { notices.append(OutageNotice(environment: environment.rawValue, worker: "w1")) }
            }
        }
        #expect(notices.count == 1)
        for index in 1..<3 { _ = fleet[index].heard(notices[0], now: clock.now) }
        // For the next 30 s of outage, count what the fleet lets out.
        var requests = 0
        for _ in 0..<300 {
            clock.advance(by: .milliseconds(100))
            for index in fleet.indices {
                let admitted = fleet[index].slotsToClaim(now: clock.now)
                guard admitted > 0 else { continue }
                _ = fleet[index].claimed(admitted, of: admitted, now: clock.now)
                requests += admitted
                for _ in 0..<admitted { _ = fleet[index].finished(Self.refused, sentAt: clock.now, now: clock.now) }
            }
        }
        // Probes 2 s after each breaker opened, then every 2 s: at most 16 per worker in 30 s —
        // the chaos suite's bound, cheap, and the fleet hears of Apple's return within 2 s.
        #expect(requests <= 3 * 16, "\(requests) requests in 30 s of outage")
        #expect(fleet.allSatisfy { $0.phase(.production) != .closed })
    }

    /// A gate past slow start with nothing in flight.
    func warmedUp() -> Gate {
        var gate = gate()
        _ = gate.claimed(20, of: gate.slotsToClaim(now: clock.now), now: clock.now)
        for _ in 0..<20 { _ = gate.finished(Self.answered, sentAt: clock.now, now: clock.now) }
        return gate
    }
}
