@testable import HTTPClient
import Testing

/// The engine's list of hedges due: soonest first, whatever the order they were added in.
struct HedgeTimersTests {
    @Test func timersComeDueSoonestFirstAndNotBeforeTheirTime() {
        let start = ContinuousClock.now
        var timers = HedgeTimers()
        for (id, seconds) in [(1, 5), (2, 3), (3, 5), (4, 1), (5, 4)] as [(UInt64, Int64)] {
            timers.add(id, due: start + .seconds(seconds))
        }
        #expect(timers.nextDue == start + .seconds(1))
        #expect(timers.popDue(now: start) == nil)
        var popped: [UInt64] = []
        while let id = timers.popDue(now: start + .seconds(5)) { popped.append(id) }
        #expect(popped == [4, 2, 5, 1, 3])   // equal deadlines in the order added
        #expect(timers.nextDue == nil)
        #expect(timers.count == 0)
    }

    @Test func aLongRunOfTimersKeepsOnlyThoseNotYetDue() {
        let start = ContinuousClock.now
        var timers = HedgeTimers()
        for id in 0..<10_000 as Range<UInt64> {
            timers.add(id, due: start + .milliseconds(Int64(id)))
            if id >= 100 { _ = timers.popDue(now: start + .milliseconds(Int64(id - 100))) }
        }
        #expect(timers.count == 100)
        #expect(timers.nextDue == start + .milliseconds(9_900))
    }
}
