import AppStore
import FakeAppStore
import HTTPClient
import Synchronization
import Testing

/// Hedged requests (`HTTPHedge`) against the fake App Store: a straggler is sent again by the
/// engine, the first answer that ends the wait wins, and the caller's budget is asked first.
struct HTTPClientHedgingTests {
    /// Counts how often the engine asked whether it may hedge, and answers `allow`.
    final class Asked: Sendable {
        let allow: Bool
        private let count = Mutex(0)
        init(allow: Bool) { self.allow = allow }
        func ask() -> Bool {
            count.withLock { $0 += 1 }
            return allow
        }
        var times: Int { count.withLock { $0 } }
    }

    /// `waitingOutAppleTrouble`: an answer of Apple's trouble (a 503, a 21002) does not end the
    /// wait, as the worker's `HedgePolicy.endsTheWait`; otherwise any HTTP 200 does.
    static func hedge(after: Duration, stragglerAfter: Duration? = nil, _ asked: Asked, waitingOutAppleTrouble: Bool = false) -> HTTPHedge {
        HTTPHedge(after: after, stragglerAfter: stragglerAfter, mayHedge: { asked.ask() }, endsTheWait: { answer in
            guard case .success(let response) = answer, response.status == 200 else { return false }
            return !waitingOutAppleTrouble || isValid(response)
        })
    }

    /// A fake App Store answering in 1 s whose first request hangs and whose second meets
    /// Apple's trouble (21005), in arrival order: either request of a pair, or a straggler and
    /// its hedge.
    static func firstHangsSecondMeetsTrouble() async throws -> FakeAppStoreServer {
        try await HTTPClientAgainstFakeTests.quickFake {
            $0.latency = FakeDurationRange(lower: .seconds(1), upper: .seconds(1))
            $0.firstRequests = [.hang, .status(21_005)]
        }
    }

    /// Apple's status in a verifyReceipt answer (nil: not one).
    static func appleStatus(_ response: HTTPResponse) -> Int? {
        guard case .retryLater(.appleServerError(let status, _)) = ReceiptClassification.classify(httpStatus: response.status, body: response.body)
        else { return nil }
        return status
    }

    static func isValid(_ response: HTTPResponse) -> Bool {
        if case .valid = ReceiptClassification.classify(httpStatus: response.status, body: response.body) { return true }
        return false
    }

    /// Posts the fake's receipt with a hedge due `after`, counting the engine's questions in `asked`.
    static func post(_ client: HTTPClient, to url: String, timeout: Duration, hedgeAfter after: Duration,
                     _ asked: Asked, waitingOutAppleTrouble: Bool = false) async throws -> HTTPResponse {
        try await client.post(url: url, body: HTTPBody(HTTPClientAgainstFakeTests.body()), timeout: timeout,
                              hedge: hedge(after: after, asked, waitingOutAppleTrouble: waitingOutAppleTrouble))
    }

    @Test func aHungRequestIsHedgedAndTheHedgesAnswerEndsTheWaitLongBeforeTheTimeout() async throws {
        // Every request in the fake's first 2 s hangs: the first one does, the hedge (at 3 s) does not.
        let fake = try await HTTPClientAgainstFakeTests.quickFake {
            $0.pHang = 1
            $0.randomFaultsEnd = .seconds(2)
        }
        let client = HTTPClient()
        let asked = Asked(allow: true)
        let clock = ContinuousClock()
        let started = clock.now
        let response = try await Self.post(client, to: fake.productionURL, timeout: .seconds(30), hedgeAfter: .seconds(3), asked)
        let elapsed = clock.now - started
        #expect(Self.isValid(response), "the hedge's valid answer was not returned: HTTP \(response.status)")
        #expect(asked.times == 1)
        #expect(fake.stats.snapshot().requests == 2)
        #expect(elapsed >= .seconds(3))
        #expect(elapsed < .seconds(25), "waited \(elapsed): the hung first request's timeout, not the hedge")
        await client.shutdown()
        await fake.stop()
    }

    /// The straggler hangs and its hedge meets Apple's trouble (21002 here, during a fake outage
    /// of them): one more request goes at once and its answer ends the wait, long before the
    /// hung request's timeout.
    @Test func aHedgeThatMeetsAppleTroubleWhileTheStragglerHangsIsSentOnceMore() async throws {
        // t 0: the first request hangs (random faults until 1 s). t 1.4: the hedge meets the
        // 21002 outage (1–1.9 s) and is answered at 2.4 s. t 2.4: one more, answered at 3.4 s.
        let fake = try await HTTPClientAgainstFakeTests.quickFake {
            $0.latency = FakeDurationRange(lower: .seconds(1), upper: .seconds(1))
            $0.pHang = 1
            $0.randomFaultsEnd = .seconds(1)
            $0.outages = [FakeOutage(start: .seconds(1), end: .milliseconds(1_900), kind: .malformed21002)]
        }
        let client = HTTPClient()
        let asked = Asked(allow: true)
        let started = ContinuousClock.now
        let response = try await Self.post(client, to: fake.productionURL, timeout: .seconds(30), hedgeAfter: .milliseconds(1_400),
                                           asked, waitingOutAppleTrouble: true)
        let elapsed = ContinuousClock.now - started
        #expect(Self.isValid(response), "the last request's valid answer was not returned: HTTP \(response.status)")
        #expect(asked.times == 2)
        #expect(fake.stats.snapshot().requests == 3)
        #expect(elapsed < .seconds(20), "waited \(elapsed): the hung first request's timeout, not the second hedge")
        await client.shutdown()
        await fake.stop()
    }

    /// A pair (both requests at once, as a job's third try goes): one hangs, the other meets
    /// Apple's trouble (21005). Once the hung one has been out `stragglerAfter`, the request ends
    /// with the 21005, so the caller retries then instead of after the hang's timeout; nothing
    /// more is sent.
    @Test func aPairWhoseOneRequestHangsEndsWithTheOthersTroubleOnceItIsAStraggler() async throws {
        let fake = try await Self.firstHangsSecondMeetsTrouble()
        let client = HTTPClient()
        let asked = Asked(allow: true)
        let started = ContinuousClock.now
        let response = try await client.post(url: fake.productionURL, body: HTTPBody(HTTPClientAgainstFakeTests.body()), timeout: .seconds(8),
                                             hedge: Self.hedge(after: .zero, stragglerAfter: .seconds(2), asked, waitingOutAppleTrouble: true))
        let elapsed = ContinuousClock.now - started
        #expect(Self.appleStatus(response) == 21_005, "HTTP \(response.status)")
        #expect(elapsed >= .milliseconds(1_900), "ended after \(elapsed): before the hung request was a straggler")
        #expect(elapsed < .seconds(5), "waited \(elapsed): the hung request's timeout")
        #expect(asked.times == 1)
        #expect(fake.stats.snapshot().requests == 2, "nothing more is sent")
        await client.shutdown()
        await fake.stop()
    }

    /// The same pair without `stragglerAfter`: the hang is waited out to its timeout.
    @Test func withoutAStragglerLimitThePairWaitsOutTheHang() async throws {
        let fake = try await Self.firstHangsSecondMeetsTrouble()
        let client = HTTPClient()
        let asked = Asked(allow: true)
        await #expect(throws: HTTPClientError.timeout) {
            _ = try await client.post(url: fake.productionURL, body: HTTPBody(HTTPClientAgainstFakeTests.body()), timeout: .seconds(3),
                                      hedge: Self.hedge(after: .zero, asked, waitingOutAppleTrouble: true))
        }
        #expect(fake.stats.snapshot().requests == 2)
        await client.shutdown()
        await fake.stop()
    }

    /// A straggler hangs, its hedge meets Apple's trouble and the caller allows no re-hedge (no
    /// credit left, or the breaker opened): the request ends with the trouble at once, the
    /// straggler having been out past `stragglerAfter`, instead of at its timeout.
    @Test func aHungStragglerWhoseHedgeMetTroubleAndMayNotBeSentAgainEndsAtOnce() async throws {
        let fake = try await Self.firstHangsSecondMeetsTrouble()
        let client = HTTPClient()
        let allowed = Mutex(1)
        let hedge = HTTPHedge(after: .seconds(1), stragglerAfter: .seconds(1),
                              mayHedge: { allowed.withLock { left in defer { left -= 1 }; return left > 0 } },
                              endsTheWait: { answer in
                                  guard case .success(let response) = answer else { return false }
                                  return Self.isValid(response)
                              })
        let started = ContinuousClock.now
        let response = try await client.post(url: fake.productionURL, body: HTTPBody(HTTPClientAgainstFakeTests.body()), timeout: .seconds(8), hedge: hedge)
        let elapsed = ContinuousClock.now - started
        #expect(Self.appleStatus(response) == 21_005, "HTTP \(response.status)")
        #expect(elapsed < .seconds(4), "waited \(elapsed): the hung request's timeout")
        #expect(allowed.withLock { $0 } < 0, "the re-hedge was asked for and refused")
        #expect(fake.stats.snapshot().requests == 2)
        await client.shutdown()
        await fake.stop()
    }

    @Test func noHedgeGoesWhenTheCallerRefusesAndTheHangRunsToItsTimeout() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake { $0.pHang = 1 }
        let client = HTTPClient()
        let asked = Asked(allow: false)
        await #expect(throws: HTTPClientError.timeout) {
            _ = try await Self.post(client, to: fake.productionURL, timeout: .seconds(2), hedgeAfter: .milliseconds(300), asked)
        }
        #expect(asked.times == 1)
        #expect(fake.stats.snapshot().requests == 1)
        await client.shutdown()
        await fake.stop()
    }

    @Test func anAnswerBeforeTheHedgeIsDueEndsTheRequestWithoutAskingForAHedge() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake()
        let client = HTTPClient()
        let asked = Asked(allow: true)
        let response = try await Self.post(client, to: fake.productionURL, timeout: .seconds(30), hedgeAfter: .seconds(2), asked)
        #expect(response.status == 200)
        try await Task.sleep(for: .seconds(3))   // past the hedge's due time: the engine skips the ended request
        #expect(asked.times == 0)
        #expect(fake.stats.snapshot().requests == 1)
        await client.shutdown()
        await fake.stop()
    }

    @Test func cancellingTheCallerAbortsBothRequestsAtOnce() async throws {
        let fake = try await HTTPClientAgainstFakeTests.quickFake { $0.pHang = 1 }
        let client = HTTPClient()
        let asked = Asked(allow: true)
        let url = fake.productionURL
        let request = Task {
            try await Self.post(client, to: url, timeout: .seconds(60), hedgeAfter: .milliseconds(200), asked)
        }
        while fake.stats.snapshot().requests < 2 { try await Task.sleep(for: .milliseconds(50)) }
        let clock = ContinuousClock()
        let cancelled = clock.now
        request.cancel()
        await #expect(throws: CancellationError.self) { _ = try await request.value }
        #expect(clock.now - cancelled < .seconds(5))
        await client.shutdown()
        await fake.stop()
    }
}
