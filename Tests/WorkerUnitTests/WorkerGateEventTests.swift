import AppStore
import ClockTesting
import Foundation
import ReceiptQueue
import Testing
@testable import Worker

/// The gate as the worker drives it: each event in, the actions out — the worker only carries
/// them out (`ReceiptWorker`). Every outcome leaves as `.record` or `.release`; every slot comes back,
/// and nothing admitted before the breaker opened, a 21004 pause began or stop goes after it.
@Suite("Worker gate: events in, actions out")
struct WorkerGateEventTests {
    typealias Gate = WorkerGate<ManualClock.Instant>
    let clock = ManualClock()
    static let poll = Duration.seconds(1)

    func gate() -> Gate {
        var breaker = CircuitBreakerConfiguration()
        breaker.slowStartCeiling = 21
        return Gate(configuration: .init(name: "w1", concurrency: 2000, maxClaimBatch: 500, configurationErrorPause: .seconds(60),
                                         breaker: breaker, canaryWindow: .milliseconds(500), sendPace: .milliseconds(5)))
    }

    static func leases(_ count: Int, from first: Int64 = 1) -> [JobLease] {
        (first..<first + Int64(count)).map {
            JobLease(id: $0, attempt: 1, receiptData: "r\($0)", transactionID: "t\($0)", userID: "u", productID: nil, orderID: nil,
                     createdAt: Date(), lockedUntil: Date())
        }
    }

    static let answered = VerificationResult(outcome: .reject(.notAuthentic), environment: .production, latency: .seconds(4), calls: 1)
    static let refused = VerificationResult(outcome: .retryLater(.network("refused")), environment: .production, latency: .zero, calls: 1)

    func handle(_ gate: inout Gate, _ event: Gate.Event) -> [Gate.Action] {
        gate.handle(event, now: clock.now, pollInterval: Self.poll)
    }

    func sent(_ actions: [Gate.Action]) -> [JobLease] {
        actions.flatMap { action -> [JobLease] in
            guard case .send(let leases, _) = action else { return [] }
            return leases
        }
    }

    @Test func aLookAtTheQueueClaimsTheAdmittedSlotsOrWaits() {
        var gate = gate()
        #expect(handle(&gate, .tick) == [.claim(20)])   // slow start: a threshold before Apple answers
        _ = handle(&gate, .claimed(Self.leases(20), of: 20))
        #expect(handle(&gate, .tick) == [.wait(Self.poll)])   // nothing admitted until Apple answers
        _ = handle(&gate, .stop)
        #expect(handle(&gate, .tick).isEmpty)                   // stopping: the loop ends
    }

    @Test func aClaimGoesOutInChunksWithPausesAndAShortClaimThenWaits() {
        var gate = gate()
        let leases = Self.leases(20)
        #expect(handle(&gate, .tick) == [.claim(20)])
        let first = handle(&gate, .claimed(Array(leases.prefix(12)), of: 20))
        #expect(first.contains(.meterClaim(12)))
        #expect(sent(first).count == 12)   // one chunk (the breaker's threshold, 20) holds them all
        #expect(first.last == .wait(Self.poll), "a claim that came back short: the queue is drained")
        #expect(gate.inFlight == 12)
    }

    /// What pairs a job's second try (`HedgePolicy.idlePairedAttempts`): the last claim came back
    /// short, so no job waits for a slot; a full claim means a backlog again.
    @Test func aShortClaimMarksTheBacklogDrainedAndAFullOneClearsIt() {
        var gate = gate()
        #expect(!gate.backlogDrained)
        _ = handle(&gate, .tick)
        _ = handle(&gate, .claimed(Self.leases(12), of: 20))
        #expect(gate.backlogDrained)
        for lease in Self.leases(12) {
            _ = handle(&gate, .answered(Self.answered, attempt: FinishedAttempt(lease: lease, decision: .result(.rejected(reason: "r"))),
                                        sentAt: clock.now))
        }
        let wanted = handle(&gate, .tick)
        guard case .claim(let count) = wanted.first else { Issue.record("expected a claim, got \(wanted)"); return }
        _ = handle(&gate, .claimed(Self.leases(count, from: 100), of: count))
        #expect(!gate.backlogDrained)
    }

    @Test func whatIsLeftOfAClaimWhenTheBreakerOpensIsReleasedAndItsSlotsComeBack() {
        var gate = gate()
        _ = handle(&gate, .tick)
        _ = handle(&gate, .claimed(Self.leases(20), of: 20))
        for lease in Self.leases(20) {
            _ = handle(&gate, .answered(Self.answered, attempt: FinishedAttempt(lease: lease, decision: .result(.rejected(reason: "r"))),
                                        sentAt: clock.now))
        }
        clock.advance(by: .seconds(10))   // a lull: the next claim's first chunk is a canary
        let wanted = gate.handle(.tick, now: clock.now, pollInterval: Self.poll)
        #expect(wanted == [.claim(500)])
        let claim = handle(&gate, .claimed(Self.leases(500, from: 100), of: 500))
        #expect(sent(claim).count == 20)
        #expect(claim.last == .pause(.milliseconds(500)))
        // The canaries fail: the breaker opens, the fleet is told.
        var reports: [Gate.Action] = []
        for lease in sent(claim) {
            reports += handle(&gate, .answered(Self.refused, attempt: FinishedAttempt(lease: lease, decision: .result(.retry(delayMilliseconds: 1, error: "e"))),
                                               sentAt: clock.now))
        }
        #expect(reports.contains(.report(.announceOutage(.production))))
        clock.advance(by: .milliseconds(500))
        let rest = handle(&gate, .chunkDue)
        guard case .release(let released) = rest.first else { Issue.record("expected the rest released: \(rest)"); return }
        #expect(released.count == 480)
        #expect(gate.inFlight == 0)
        #expect(handle(&gate, .chunkDue).isEmpty)
    }

    @Test func everyEndOfAVerificationRecordsOnceAndFreesItsSlot() {
        var gate = gate()
        let leases = Self.leases(3)
        _ = handle(&gate, .tick)
        _ = handle(&gate, .claimed(leases, of: 20))
        let rejected = FinishedAttempt(lease: leases[0], decision: .result(.rejected(reason: "not a receipt")))
        let answer = handle(&gate, .answered(Self.answered, attempt: rejected, sentAt: clock.now))
        #expect(answer.first == .record(rejected))
        #expect(answer.contains(.meterInFlight(2)) && answer.last == .wake)
        let local = FinishedAttempt(lease: leases[1], decision: .result(.rejected(reason: "local")))
        #expect(handle(&gate, .decidedLocally(local)) == [.record(local), .meterInFlight(1), .wake])
        #expect(handle(&gate, .abandoned(leases[2])) == [.record(FinishedAttempt(lease: leases[2], decision: .result(.release))),
                                                         .meterInFlight(0), .wake])
        #expect(gate.inFlight == 0)
    }

    @Test func aNoticeFromAnotherWorkerIsReportedAndStopsTheClaims() {
        var gate = gate()
        #expect(handle(&gate, .noticeHeard(OutageNotice(environment: "Production", worker: "w2")))
                == [.report(.breakerMoved(.production, .open, reportedBy: "w2"))])
        #expect(handle(&gate, .tick) == [.wait(Self.poll)])
    }

    static let secretRefused = VerificationResult(outcome: .configurationError(.sharedSecretMismatch), environment: .production,
                                                  latency: .seconds(4), calls: 1)

    @Test func aRequestWhoseEraEndedBeforeItWentIsRecordedAsReleasedAndItsSlotComesBack() {
        var gate = gate()
        _ = handle(&gate, .tick)
        let claim = handle(&gate, .claimed(Self.leases(10), of: 20))
        guard case .send(let leases, let era) = claim.first(where: { if case .send = $0 { true } else { false } }) else {
            Issue.record("expected a send: \(claim)"); return
        }
        for lease in leases.prefix(5) {
            _ = handle(&gate, .answered(Self.secretRefused, attempt: FinishedAttempt(lease: lease, decision: .result(.release)),
                                        sentAt: clock.now))
        }
        #expect(!gate.maySend(admittedIn: era))                       // the pause began: the other five stay here
        #expect(handle(&gate, .unsent(leases[5])) == [.record(FinishedAttempt(lease: leases[5], decision: .result(.release))),
                                                      .meterInFlight(4), .wake])
    }

    /// Slow start counts what it admitted until Apple answers; a request a 21004 pause held back
    /// gives its room back, so the claims after the pause are as large as the answers allow.
    @Test func requestsHeldBackByA21004PauseGiveSlowStartItsRoomBack() {
        var gate = Gate(configuration: .init(name: "w1", concurrency: 2000, maxClaimBatch: 500, configurationErrorPause: .seconds(60),
                                             breaker: CircuitBreakerConfiguration(), canaryWindow: .milliseconds(500),
                                             sendPace: .milliseconds(5)))
        #expect(handle(&gate, .tick) == [.claim(20)])
        let leases = sent(handle(&gate, .claimed(Self.leases(10), of: 20)))
        for lease in leases.prefix(5) {
            _ = handle(&gate, .answered(Self.secretRefused, attempt: FinishedAttempt(lease: lease, decision: .result(.release)),
                                        sentAt: clock.now))
        }
        for lease in leases.suffix(5) { _ = handle(&gate, .unsent(lease)) }   // the pause began before they went
        clock.advance(by: .seconds(61))
        #expect(handle(&gate, .tick) == [.claim(1)])                            // after the pause: one job to learn the secret works
        let probe = Self.leases(1, from: 100)
        _ = handle(&gate, .claimed(probe, of: 1))
        _ = handle(&gate, .answered(Self.answered, attempt: FinishedAttempt(lease: probe[0], decision: .result(.rejected(reason: "r"))),
                                    sentAt: clock.now))
        // Six answers, each growing slow start by 15: 20 + 90 may be out, and nothing is.
        #expect(handle(&gate, .tick) == [.claim(110)])
    }

    @Test func aClaimThatComesBackAfterA21004PauseBeganIsReleasedWhole() {
        var gate = gate()
        _ = handle(&gate, .tick)
        let first = Self.leases(10)
        _ = handle(&gate, .claimed(first, of: 20))
        guard case .claim(let wanted) = handle(&gate, .tick).first else { Issue.record("expected a second claim"); return }
        // While the second claim runs in the database, five answers of the first say 21004.
        for lease in first.prefix(5) {
            _ = handle(&gate, .answered(Self.secretRefused, attempt: FinishedAttempt(lease: lease, decision: .result(.release)), sentAt: clock.now))
        }
        let second = Self.leases(8, from: 50)
        let steps = handle(&gate, .claimed(second, of: wanted))
        #expect(sent(steps).isEmpty)
        #expect(steps.contains(.release(second)))
        #expect(gate.inFlight == 5)                                    // the first claim's other five, still at Apple
    }

    /// The worker lets go of everything else before it waits (no claimed receipt is held through a
    /// pause): whatever the events, a step that waits comes last, and there is at most one.
    @Test func aStepThatWaitsIsAlwaysTheLastAndTheOnlyOne() {
        var gate = gate()
        var random = SplitMix(seed: 24)
        var outstanding: [JobLease] = []
        var next: Int64 = 1
        for _ in 0..<2_000 {
            let event: Gate.Event
            switch Int.random(in: 0..<6, using: &random) {
            case 0: event = .tick
            case 1:
                let wanted = Int.random(in: 0...40, using: &random)
                let leases = Self.leases(Int.random(in: 0...wanted, using: &random), from: next)
                next += Int64(leases.count)
                event = .claimed(leases, of: wanted)
            case 2: event = .chunkDue
            case 3 where !outstanding.isEmpty:
                let lease = outstanding.removeFirst()
                let result = [Self.answered, Self.refused, Self.secretRefused].randomElement(using: &random)!
                event = .answered(result, attempt: FinishedAttempt(lease: lease, decision: .result(.release)), sentAt: clock.now)
            case 4: event = .noticeHeard(OutageNotice(environment: "Production", worker: "w2"))
            default:
                clock.advance(by: .milliseconds(Int64.random(in: 1...3_000, using: &random)))
                continue
            }
            let steps = handle(&gate, event)
            outstanding += sent(steps)
            let waiting = steps.indices.filter { steps[$0].waits }
            #expect(waiting.count <= 1 && waiting.allSatisfy { $0 == steps.count - 1 }, "\(steps)")
        }
    }
}
