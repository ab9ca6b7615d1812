import AppStore
import Foundation
import HTTPClient
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

    @Test("a verification of two requests (a sandbox receipt) teaches the p99 one request's wait")
    func sandboxReceiptsCountPerRequest() {
        var policy = HedgePolicy(margin: 1.2, minimumSamples: 100)
        for n in 0..<95 { policy.answered(after: .milliseconds(3_000 + 30 * n), requests: 1) }   // 3.0 … 5.85 s
        for _ in 0..<5 { policy.answered(after: .seconds(11), requests: 2) }                      // 21007, then the sandbox
        let delay = policy.firstSent()
        #expect(delay.map { $0 <= .milliseconds(7_200) } == true, "hedge after \(String(describing: delay)), not 11 s × 1.2")
    }

    @Test("a job's third to sixth tries go as two requests at once; its first, second and seventh are hedged as stragglers",
          arguments: [(1, false), (2, false), (3, true), (4, true), (6, true), (7, false)])
    func pairedTries(attempt: Int, paired: Bool) {
        var policy = HedgePolicy(minimumSamples: 10, initialDelay: .seconds(8))
        #expect(policy.plan(attempt: attempt) == (paired ? .paired(stragglerAfter: .seconds(8)) : .hedgeAfter(.seconds(8))))
    }

    @Test("once the backlog is drained a job's second try is paired too, its first never",
          arguments: [(1, false), (2, true), (6, true), (7, false)])
    func pairedWhenIdle(attempt: Int, paired: Bool) {
        var policy = HedgePolicy(minimumSamples: 10, initialDelay: .seconds(8))
        #expect(policy.plan(attempt: attempt, backlogDrained: true) == (paired ? .paired(stragglerAfter: .seconds(8)) : .hedgeAfter(.seconds(8))))
        #expect(policy.plan(attempt: 2, backlogDrained: false) == .hedgeAfter(.seconds(8)))
    }

    @Test("with pairing switched off every try is hedged as a straggler")
    func pairingOff() {
        var policy = HedgePolicy(minimumSamples: 10, initialDelay: .seconds(8), pairedAttempts: nil, idlePairedAttempts: nil)
        #expect(policy.plan(attempt: 3, backlogDrained: true) == .hedgeAfter(.seconds(8)))
        #expect(policy.plan(attempt: 2, backlogDrained: true) == .hedgeAfter(.seconds(8)))
    }

    @Test("a paired try earns a straggler's credit like any first request, and spends none")
    func pairedTriesKeepTheCredit() {
        var policy = HedgePolicy(maxShare: 0.5, minimumSamples: 1)
        policy.answered(after: .seconds(4))
        #expect(policy.plan(attempt: 3) == .paired(stragglerAfter: .milliseconds(4_800)), "the hedge delay: p99 4 s × 1.2")
        #expect(policy.plan(attempt: 4) == .paired(stragglerAfter: .milliseconds(4_800)))
        let first = policy.mayHedge(), second = policy.mayHedge()
        #expect(first && !second, "two paired tries earned one credit")
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

    @Test("a worker keeps three times the hedge share of its slots in credit: the stragglers of a backlog's last seconds still get their hedges")
    func creditSizedToConcurrency() {
        func hedgesAfterTheLastSend(_ policy: HedgePolicy) -> Int {
            var policy = policy
            for _ in 0..<5_000 { _ = policy.firstSent() }   // a backlog's sends, none straggled
            var hedges = 0
            while policy.mayHedge() { hedges += 1 }         // then its last stragglers fall due
            return hedges
        }
        #expect(hedgesAfterTheLastSend(HedgePolicy()) == 10)
        #expect(hedgesAfterTheLastSend(HedgePolicy().sized(forConcurrency: 500)) == 30)
        #expect(HedgePolicy().sized(forConcurrency: 5_000).maxCredit == 300)
        #expect(HedgePolicy().sized(forConcurrency: 50).maxCredit == 10, "a small worker keeps the floor")
        #expect(HedgePolicy(maxShare: 0.05).sized(forConcurrency: 500).maxCredit == 75)
    }

    @Test("the window forgets old latencies: Apple slowing down moves the p99")
    func window() {
        var policy = HedgePolicy(window: 100, minimumSamples: 100)
        for _ in 0..<100 { policy.answered(after: .seconds(1)) }
        #expect(policy.percentile(0.99) == .seconds(1))
        for _ in 0..<100 { policy.answered(after: .seconds(5)) }
        #expect(policy.percentile(0.99) == .seconds(5))
    }

    @Test("while the other request is out, an answer that says what the receipt is ends the wait; Apple's trouble does not")
    func whichAnswerEndsTheWait() throws {
        func answer(_ object: [String: Any], httpStatus: Int = 200) throws -> Result<HTTPResponse, HTTPClientError> {
            .success(HTTPResponse(status: httpStatus, headers: [], body: Array(try JSONSerialization.data(withJSONObject: object))))
        }
        let valid: [String: Any] = ["status": 0, "environment": "Production",
                                    "receipt": ["bundle_id": "com.example.app", "in_app": [purchase("1")]]]
        let table: [(String, Result<HTTPResponse, HTTPClientError>, ends: Bool)] = [
            ("valid", try answer(valid), true),
            ("21003 not authentic", try answer(["status": 21003]), true),
            ("21004 secret refused", try answer(["status": 21004]), true),
            ("21007 ask the sandbox", try answer(["status": 21007]), true),
            ("HTTP 503", .success(HTTPResponse(status: 503, headers: [], body: [])), false),   // the hung first request may still answer
            ("21005 unavailable", try answer(["status": 21005]), false),
            ("21199 retryable", try answer(["status": 21199, "is-retryable": true]), false),
            ("timeout", .failure(.timeout), false),
            ("connection reset", .failure(.transport(code: 56, message: "reset")), false),
        ]
        for (name, answer, ends) in table {
            #expect(HedgePolicy.endsTheWait(answer) == ends, "\(name)")
        }
    }
}
