import AppStore
import Testing
import Worker

/// When a straggling verification is asked again: past the recent p99, at most 2% of requests.
@Suite("Hedging: stragglers asked again, boundedly")
struct HedgePolicyTests {
    @Test("until enough answers were seen to know the p99, a hedge waits the initial delay")
    func needsSamples() {
        var policy = HedgePolicy(margin: 1.2, minimumSamples: 10, initialDelay: .seconds(8))
        #expect(policy.firstSent() == .seconds(8))   // a cold worker's hangs are hedged too
        for _ in 0..<9 { policy.answered(after: .seconds(4)) }
        #expect(policy.firstSent() == .seconds(8))
        policy.answered(after: .seconds(4))
        #expect(policy.firstSent() == .milliseconds(4_800))   // the p99 (4 s) × 1.2
    }

    @Test("a hedge waits for the recent p99 times the margin, never less than the floor")
    func delay() {
        var policy = HedgePolicy(margin: 1.2, minimumSamples: 100)
        for n in 0..<100 { policy.answered(after: .milliseconds(3_000 + 30 * n)) }   // 3.0 … 5.97 s
        let delay = policy.firstSent()
        #expect(delay.map { $0 >= .milliseconds(7_000) && $0 <= .milliseconds(7_200) } == true, "\(String(describing: delay))")
        var fast = HedgePolicy(minimumSamples: 10)
        for _ in 0..<10 { fast.answered(after: .milliseconds(50)) }
        #expect(fast.firstSent() == .seconds(1))
    }

    @Test("hedges never exceed their share of first requests, however many straggle")
    func budget() {
        var policy = HedgePolicy(maxShare: 0.02, minimumSamples: 1)
        policy.answered(after: .seconds(4))
        var hedges = 0
        for _ in 0..<10_000 {
            _ = policy.firstSent()
            if policy.mayHedge() { hedges += 1 }   // every request straggles
        }
        #expect(hedges <= 200 && hedges >= 190, "\(hedges) hedges for 10,000 requests")
    }

    @Test("the window forgets old latencies: Apple slowing down moves the p99")
    func window() {
        var policy = HedgePolicy(window: 100, minimumSamples: 100)
        for _ in 0..<100 { policy.answered(after: .seconds(1)) }
        #expect(policy.percentile(0.99) == .seconds(1))
        for _ in 0..<100 { policy.answered(after: .seconds(5)) }
        #expect(policy.percentile(0.99) == .seconds(5))
    }

    @Test("a conclusive answer ends a hedged verification; Apple's trouble only when no other request is out")
    func whichAnswerEndsTheWait() throws {
        let valid = VerificationOutcome.valid(try appleResponse(inApp: [purchase("1")]))
        let table: [(VerificationOutcome, otherRequestOut: Bool, ends: Bool)] = [
            (valid, true, true),
            (.reject(.notAuthentic), true, true),
            (.configurationError(.sharedSecretMismatch), true, true),
            (.retryLater(.httpStatus(503)), true, false),   // the hung first request may still answer
            (.timedOut, true, false),
            (.retryLater(.httpStatus(503)), false, true),   // nothing else to wait for: retried
            (.timedOut, false, true),
        ]
        for (outcome, otherRequestOut, ends) in table {
            #expect(HedgePolicy.endsTheWait(outcome, otherRequestOut: otherRequestOut) == ends, "\(outcome), other out: \(otherRequestOut)")
        }
    }
}
