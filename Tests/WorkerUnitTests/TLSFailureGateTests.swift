import AppStore
import ClockTesting
import ReceiptQueue
import Testing
@testable import Worker

/// A TLS verification failure toward Apple is a CA bundle or clock problem on our side: it
/// alerts, and never opens (or closes) the circuit breaker as an Apple outage would.
@Suite("TLS failures: alerted, never an Apple outage")
struct TLSFailureGateTests {
    typealias Gate = WorkerGate<ManualClock.Instant>
    let clock = ManualClock()

    func gate() -> Gate {
        Gate(configuration: .init(name: "w1", concurrency: 2000, maxClaimBatch: 500, configurationErrorPause: .seconds(60),
                                  breaker: CircuitBreakerConfiguration(), canaryWindow: .zero, sendPace: .milliseconds(5)))
    }

    static let tlsFailure = VerificationResult(outcome: .retryLater(.tls("certificate verify failed")), environment: .production,
                                               latency: .milliseconds(20), calls: 1)
    static let refused = VerificationResult(outcome: .retryLater(.network("refused")), environment: .production, latency: .zero, calls: 1)

    @Test func aRunOfTLSFailuresLeavesTheBreakerClosedAndAlertsOncePerInterval() {
        var gate = gate()
        var alerts: [WorkerGate<ManualClock.Instant>.Report] = []
        for _ in 0..<5 {
            _ = gate.claimed(gate.slotsToClaim(now: clock.now), of: 20, now: clock.now)
            for _ in 0..<20 {
                alerts += gate.finished(Self.tlsFailure, sentAt: clock.now, now: clock.now)
            }
        }
        #expect(gate.phase(.production) == .closed)
        #expect(gate.slotsToClaim(now: clock.now) == 20)   // slow start got its room back each time: it never fills
        #expect(alerts == [.alert(.tls("certificate verify failed"), heldBack: 0)])
        clock.advance(by: .seconds(10))
        _ = gate.claimed(1, of: 1, now: clock.now)
        #expect(gate.finished(Self.tlsFailure, sentAt: clock.now, now: clock.now) == [.alert(.tls("certificate verify failed"), heldBack: 99)])
    }

    @Test func theSameRunOfNetworkFailuresOpensIt() {
        var gate = gate()
        _ = gate.claimed(gate.slotsToClaim(now: clock.now), of: 20, now: clock.now)
        var actions: [WorkerGate<ManualClock.Instant>.Report] = []
        for _ in 0..<20 { actions += gate.finished(Self.refused, sentAt: clock.now, now: clock.now) }
        #expect(gate.phase(.production) == .open)
        #expect(actions.contains(.announceOutage(.production)))
    }
}
