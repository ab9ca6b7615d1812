import Foundation
import Postgres
import ReceiptQueue
import Testing

/// `ClaimDeliveries` takes only each user's oldest pending delivery, and only when it is due:
/// a user's later event waits for the earlier one, whatever is due and whoever else is waiting.
@Suite("Webhook deliveries: a claim takes each user's oldest pending delivery, in order")
struct ClaimDeliveriesTests {
    /// Appends one event for `user` (the fan-out trigger queues its delivery to endpoint "e"), then
    /// puts the delivery in `state`, due `dueIn` from now (negative: already due).
    static func delivery(_ fixture: QueueFixture, user: String, state: String = "queued", dueIn seconds: Int = -1) async throws -> Int64 {
        let sequence: Int64 = try await fixture.pool.query(
            "INSERT INTO receiptq.events (type, user_id, body) VALUES ('test', $1, '{}') RETURNING sequence", [user])[0].decode("sequence")
        let leased = state == "delivering"
        _ = try await fixture.pool.query("""
            UPDATE receiptq.deliveries
            SET state = $2, run_at = now() + $3 * interval '1 second',
                locked_by = CASE WHEN $4 THEN 'other' END, locked_until = CASE WHEN $4 THEN now() + interval '30 seconds' END
            WHERE endpoint_id = 'e' AND event_sequence = $1
            """, [sequence, state, seconds, leased])
        return sequence
    }

    static func claim(_ fixture: QueueFixture, limit: Int = 100) async throws -> [Int64] {
        try await fixture.pool.withConnection {
            try ClaimDeliveries.run(endpoint: "e", limit: limit, worker: "w", lease: .seconds(30), on: $0)
        }.map(\.eventSequence)
    }

    static func leases(_ fixture: QueueFixture, limit: Int = 100) async throws -> [DeliveryLease] {
        try await fixture.pool.withConnection {
            try ClaimDeliveries.run(endpoint: "e", limit: limit, worker: "w", lease: .seconds(30), on: $0)
        }
    }

    static func record(_ fixture: QueueFixture, _ leases: [DeliveryLease], _ result: DeliveryResult) async throws {
        let ends = leases.map { ($0, result) }
        _ = try await fixture.pool.withConnection { try RecordDeliveries.run(ends, worker: "w", on: $0) }
    }

    static func fixture() async throws -> QueueFixture {
        let fixture = try await QueueFixture.make()
        _ = try await fixture.pool.query(
            "INSERT INTO receiptq.webhook_endpoints (id, url, secrets) VALUES ('e', 'http://127.0.0.1:9/', ARRAY['whsec_dGVzdA=='])")
        return fixture
    }

    @Test func onlyEachUsersOldestPendingDeliveryIsClaimedWhenItIsDue() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.shutdown() }
        // a: its first is out with another deliverer; its second, due, waits for it.
        _ = try await Self.delivery(fixture, user: "a", state: "delivering")
        let aSecond = try await Self.delivery(fixture, user: "a")
        // b: its first is not due yet; its second, due, waits for it.
        let bFirst = try await Self.delivery(fixture, user: "b", dueIn: 60)
        let bSecond = try await Self.delivery(fixture, user: "b")
        // c: a delivered and a failed event are not pending; its third goes.
        _ = try await Self.delivery(fixture, user: "c", state: "delivered")
        _ = try await Self.delivery(fixture, user: "c", state: "failed")
        let cThird = try await Self.delivery(fixture, user: "c")
        // d: two due; the first goes, the second waits.
        let dFirst = try await Self.delivery(fixture, user: "d", dueIn: -3)
        let dSecond = try await Self.delivery(fixture, user: "d", dueIn: -5)

        #expect(Set(try await Self.claim(fixture)) == [dFirst, cThird])
        #expect(try await Self.claim(fixture).isEmpty, "every other delivery waits for an earlier one of its user")
        for waiting in [aSecond, bFirst, bSecond, dSecond] {
            let state: String = try await fixture.pool.query(
                "SELECT state FROM receiptq.deliveries WHERE endpoint_id = 'e' AND event_sequence = $1", [waiting])[0].decode("state")
            #expect(state == "queued")
        }
    }

    @Test func aClaimTakesTheOldestDueHeadsFirstUpToItsLimit() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.shutdown() }
        let late = try await Self.delivery(fixture, user: "x", dueIn: -1)
        let early = try await Self.delivery(fixture, user: "y", dueIn: -10)
        let middle = try await Self.delivery(fixture, user: "z", dueIn: -5)
        #expect(Set(try await Self.claim(fixture, limit: 2)) == [early, middle], "the two due longest")
        #expect(try await Self.claim(fixture, limit: 2) == [late])
    }

    /// The head mark (migration 0039) moves on as deliveries end: given up or acknowledged, the
    /// user's next one goes; a re-driven older delivery waits for the one in flight, and goes
    /// first once that one is back in the queue.
    @Test func theHeadMovesOnAsDeliveriesEndAndAReDrivenOneWaitsForTheOneInFlight() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.shutdown() }
        let first = try await Self.delivery(fixture, user: "u")
        let second = try await Self.delivery(fixture, user: "u")
        let third = try await Self.delivery(fixture, user: "u")

        let one = try await Self.leases(fixture)
        #expect(one.map(\.eventSequence) == [first])
        try await Self.record(fixture, one, .failed(status: 410, error: "HTTP 410"))
        let two = try await Self.leases(fixture)
        #expect(two.map(\.eventSequence) == [second], "given up: the next one goes")
        _ = try await fixture.pool.withConnection { try RedriveFailedDeliveries.run(endpoint: "e", on: $0) }
        #expect(try await Self.claim(fixture).isEmpty, "the re-driven first waits for the second, in flight")
        try await Self.record(fixture, two, .retry(delayMilliseconds: 0, status: 503, error: "HTTP 503"))
        let again = try await Self.leases(fixture)
        #expect(again.map(\.eventSequence) == [first], "back in the queue, the second lets the older first go")
        try await Self.record(fixture, again, .delivered(status: 200))
        let next = try await Self.leases(fixture)
        #expect(next.map(\.eventSequence) == [second])
        try await Self.record(fixture, next, .delivered(status: 200))
        #expect(try await Self.claim(fixture) == [third])
    }
}
