import CommandSupport
import Testing

@Suite("Readiness cache: one database check a second serves every probe")
struct ReadinessCacheTests {
    let start = ContinuousClock.now

    @Test func theFirstProbeChecksAndProbesWithinTheLifetimeGetItsAnswer() {
        var cache = ReadinessCache<ContinuousClock.Instant>(lifetime: .seconds(1))
        #expect(cache.next(now: start) == .check)
        cache.finished(.ready, now: start + .milliseconds(10))
        #expect(cache.next(now: start + .milliseconds(500)) == .answer(.ready))
        #expect(cache.next(now: start + .milliseconds(1_009)) == .answer(.ready))
        #expect(cache.next(now: start + .milliseconds(1_010)) == .check)
    }

    @Test func probesDuringACheckJoinItInsteadOfStartingTheirOwn() {
        var cache = ReadinessCache<ContinuousClock.Instant>(lifetime: .seconds(1))
        #expect(cache.next(now: start) == .check)
        #expect(cache.next(now: start + .milliseconds(1)) == .join)
        #expect(cache.next(now: start + .milliseconds(2)) == .join)
        cache.finished(.notReady("the database cannot be reached"), now: start + .milliseconds(3))
        #expect(cache.next(now: start + .milliseconds(4)) == .answer(.notReady("the database cannot be reached")))
    }

    @Test func aStaleAnswerWithACheckRunningIsJoinedNotAnswered() {
        var cache = ReadinessCache<ContinuousClock.Instant>(lifetime: .seconds(1))
        _ = cache.next(now: start)
        cache.finished(.ready, now: start)
        #expect(cache.next(now: start + .seconds(2)) == .check)
        #expect(cache.next(now: start + .seconds(2)) == .join)
    }
}
