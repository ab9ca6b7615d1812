import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The fleet's App Store Server API budget as SQL: one bucket row per (app, endpoint, environment).
@Suite("Rate budget statements: refill, grant, pause")
struct RateBudgetStatementTests {
    let key = RateBudgetKey(bundleId: "com.example.app", endpoint: "get_transaction_info", environment: "Production")

    @Test func aBucketThatDoesNotExistGrantsNothingAndSaysSo() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        #expect(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 5, on: $0) } == nil)
    }

    @Test func aNewBucketStartsEmptyAndFillsAtItsRateUpToItsCapacity() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let (first, elapsed) = try await fixture.pool.withConnection { connection in
            let created = ContinuousClock.now   // before: the row's clock is read before its commit's flush
            try ConfigureRateBudget.run(key, ratePerSecond: 100, capacity: 10, on: connection)
            return (try TakeRateTokens.run(key, want: 10, on: connection), ContinuousClock.now - created)
        }
        let grant = try #require(first)
        // Empty at creation: only what accrued between the two statements (a loaded machine may take tens of ms).
        #expect(Double(grant.granted) <= 100 * Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds) * 100 + 1)
        try await Task.sleep(for: .milliseconds(300))   // 30 tokens' worth; the bucket holds 10
        let second = try #require(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 50, on: $0) })
        #expect(second.granted == 10)
        #expect(second.ratePerSecond == 100)
        #expect(second.wait > .zero && second.wait <= .milliseconds(11))
    }

    @Test func aFullGrantSaysNoWait() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 1_000, capacity: 50, on: $0) }
        try await Task.sleep(for: .milliseconds(100))
        let grant = try #require(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 3, on: $0) })
        #expect(grant.granted == 3)
        #expect(grant.wait == .zero)
        #expect(!grant.paused)
    }

    @Test func concurrentTakersAreNeverGrantedMoreThanCapacityPlusRateTimesElapsed() async throws {
        let fixture = try await QueueFixture.make(poolSize: 8)
        defer { fixture.shutdown() }
        let started = Date()   // before the bucket exists: every token it ever holds accrues after this
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 200, capacity: 20, on: $0) }
        let bucket = key
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    repeat {
                        total += try await fixture.pool.withConnection { try TakeRateTokens.run(bucket, want: 7, on: $0) }?.granted ?? 0
                    } while Date().timeIntervalSince(started) < 1.0
                    return total
                }
            }
            return try await group.reduce(0, +)
        }
        // An upper bound whatever the machine's load (how much of the budget is used is measured
        // across processes by FleetBudgetAcrossProcessesTests).
        let elapsed = Date().timeIntervalSince(started)
        #expect(Double(granted) <= 20 + 200 * elapsed, "granted \(granted) in \(elapsed) s")
        #expect(granted > 0)
        let budget = try #require(try await fixture.pool.withConnection { try ReadRateBudgets.run(on: $0) }.first)
        #expect(budget.grantedTotal == Int64(granted))
    }

    @Test func aPauseGrantsNothingUntilItEndsThenRefillsFromThereWithoutABurst() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 100, capacity: 50, on: $0) }
        try await Task.sleep(for: .milliseconds(300))   // 30 tokens in the bucket
        let until = Date().addingTimeInterval(2)
        let recorded = try await fixture.pool.withConnection { try PauseRateBudget.run(key, until: until, on: $0) }
        #expect(abs(try #require(recorded).timeIntervalSince(until)) < 0.01)
        let paused = try #require(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 5, on: $0) })
        #expect(paused.granted == 0)
        #expect(paused.paused)
        #expect(paused.wait > .zero && paused.wait <= .milliseconds(2_010))
        try await Task.sleep(for: .seconds(max(0, until.timeIntervalSinceNow) + 0.05))
        let after = try #require(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 50, on: $0) })
        #expect(!after.paused)
        // Only what accrued since the pause ended (not the 30 held before it, nor a full bucket).
        #expect(Double(after.granted) <= 100 * Date().timeIntervalSince(until) + 1, "granted \(after.granted)")
    }

    @Test func aShorterPauseNeverShortensALongerOne() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 100, capacity: 10, on: $0) }
        let long = Date().addingTimeInterval(10)
        try await fixture.pool.withConnection { _ = try PauseRateBudget.run(key, until: long, on: $0) }
        let kept = try await fixture.pool.withConnection { try PauseRateBudget.run(key, until: Date().addingTimeInterval(1), on: $0) }
        #expect(abs(try #require(kept).timeIntervalSince(long)) < 0.01)
    }

    @Test func reconfiguringChangesTheRateAndKeepsThePause() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 100, capacity: 10, on: $0) }
        try await fixture.pool.withConnection { _ = try PauseRateBudget.run(key, until: Date().addingTimeInterval(5), on: $0) }
        try await fixture.pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: 5, capacity: 1, on: $0) }
        let budget = try #require(try await fixture.pool.withConnection { try ReadRateBudgets.run(on: $0) }.first)
        #expect(budget.ratePerSecond == 5)
        #expect(budget.capacity == 1)
        #expect(budget.pausedUntil != nil)
        #expect(budget.pausesTotal == 1)
    }

    @Test func bucketsAreSeparatePerAppEndpointAndEnvironment() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let sandbox = RateBudgetKey(bundleId: key.bundleId, endpoint: key.endpoint, environment: "Sandbox")
        for bucket in [key, sandbox] {
            try await fixture.pool.withConnection { try ConfigureRateBudget.run(bucket, ratePerSecond: 100, capacity: 10, on: $0) }
        }
        try await fixture.pool.withConnection { _ = try PauseRateBudget.run(key, until: Date().addingTimeInterval(5), on: $0) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await fixture.pool.withConnection { try TakeRateTokens.run(key, want: 5, on: $0) }?.granted == 0)
        #expect(try await fixture.pool.withConnection { try TakeRateTokens.run(sandbox, want: 5, on: $0) }?.granted == 5)
        let status = try await fixture.pool.query("SELECT count(*) FROM receiptq.api_rate_budget_status WHERE paused")
        #expect(try status[0].decode("count", as: Int.self) == 1)
    }

    @Test func anUnknownEnvironmentIsRefusedByTheTable() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let bad = RateBudgetKey(bundleId: "a", endpoint: "b", environment: "Xcode")
        await #expect(throws: PostgresError.self) {
            try await fixture.pool.withConnection { try ConfigureRateBudget.run(bad, ratePerSecond: 1, capacity: 1, on: $0) }
        }
    }
}
