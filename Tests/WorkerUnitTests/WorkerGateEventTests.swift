import AppStore
import ClockTesting
import Foundation
import ReceiptQueue
import Testing
import Worker

/// The gate as the worker drives it: each event in, the actions out — the worker only carries
/// them out (`ReceiptWorker`). Every outcome leaves as `.record` or `.release`; every slot comes back.
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
            guard case .send(let leases) = action else { return [] }
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
}
