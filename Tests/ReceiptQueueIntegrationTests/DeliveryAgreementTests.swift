import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Each statement that moves webhook deliveries agrees with `DeliveryLifecycle.next`.
@Suite("Lifecycle: the delivery statements agree with DeliveryLifecycle.next")
struct DeliveryAgreementTests {
    static let lifecycle = DeliveryLifecycle(deadline: .seconds(3600))
    typealias Row = QueueAgreement<DeliveryLifecycle>.Row<DeliveryLease>

    /// The deadline counted from a minute ago (left) or two hours ago (spent).
    static let budgets: [(String, Duration)] = [("deadline ahead", .seconds(60)), ("deadline passed", .seconds(7200))]

    /// One delivery to endpoint "e" in every (state, budget), each of its own user (so each is the
    /// head of its user's deliveries), leased by "w" when delivering (lease and run_at past).
    static func rows(_ fixture: QueueFixture) async throws -> [Row] {
        try await fixture.pool.query("""
            INSERT INTO receiptq.webhook_endpoints (id, url, secrets) VALUES ('e', 'http://127.0.0.1:9/', ARRAY['whsec_dGVzdA=='])
            """)
        var rows: [Row] = []
        for state in DeliveryState.allCases {
            for (budget, age) in budgets {
                let user = "u-\(state.rawValue)-\(age.components.seconds)"
                let leased = state == .delivering
                // The events_fan_out trigger makes the delivery (queued); it is then put in the state wanted.
                let event = try await fixture.pool.query("""
                    INSERT INTO receiptq.events (type, user_id, body) VALUES ('test', $1, '{}') RETURNING sequence, id::text AS event_id
                    """, [user])[0]
                let sequence: Int64 = try event.decode("sequence")
                let row = try await fixture.pool.query("""
                    UPDATE receiptq.deliveries
                    SET state = $2, attempts = 1, run_at = now() - interval '1 second', locked_by = CASE WHEN $3 THEN 'w' END,
                        locked_until = CASE WHEN $3 THEN now() - interval '1 second' END, budget_from = now() - $4 * interval '1 millisecond'
                    WHERE endpoint_id = 'e' AND event_sequence = $1
                    RETURNING event_sequence, budget_from
                    """, [sequence, state.rawValue, leased, age.milliseconds])[0]
                let budgetFrom: Date = try row.decode("budget_from")
                let lease = DeliveryLease(endpointID: "e", eventSequence: try row.decode("event_sequence"), eventID: try event.decode("event_id"),
                                          attempt: 1, userID: user, body: [], url: "http://127.0.0.1:9/", secrets: [], budgetFrom: budgetFrom)
                rows.append(Row(key: lease, state: state, facts: .init(budgetFrom: budgetFrom), budget: budget))
            }
        }
        return rows
    }

    static func check(_ event: DeliveryLifecycle.Event, _ statement: (QueueFixture, [Row]) async throws -> Void) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await rows(fixture)
        try await statement(fixture, rows)
        try await QueueAgreement(spec: lifecycle).expect(event, rows) { lease in
            DeliveryState(rawValue: try await fixture.pool.query(
                "SELECT state FROM receiptq.deliveries WHERE endpoint_id = $1 AND event_sequence = $2",
                [lease.endpointID, lease.eventSequence])[0].decode("state", as: String.self))
        }
    }

    @Test func claimDeliveries() async throws {
        try await Self.check(.claim) { fixture, _ in
            _ = try await fixture.pool.withConnection {
                try ClaimDeliveries.run(endpoint: "e", limit: 100, worker: "claimer", lease: .seconds(30), on: $0)
            }
        }
    }

    @Test(arguments: DeliveryLifecycle.End.allCases)
    func recordDeliveries(_ end: DeliveryLifecycle.End) async throws {
        let result: DeliveryResult = switch end {
        case .delivered: .delivered(status: 200)
        case .retry: .retry(delayMilliseconds: 0, status: 503, error: "HTTP 503")
        case .failed: .failed(status: 410, error: "HTTP 410")
        case .release: .release
        }
        try await Self.check(.complete(end)) { fixture, rows in
            _ = try await fixture.pool.withConnection {
                try RecordDeliveries.run(rows.map { ($0.key, result) }, worker: "w", lifecycle: Self.lifecycle, on: $0)
            }
        }
    }

    @Test func rescueExpiredDeliveries() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RescueExpiredDeliveries.run(limit: 100, deadline: Self.lifecycle.deadline, on: $0) }
        }
    }

    /// `receiptq release --worker` ends a lease as the scheduler ends an expired one.
    @Test func releaseWorkerLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.transaction {
                try ReleaseWorkerLeases.run(worker: "w", budgets: .init(deliveries: Self.lifecycle), on: $0)
            }
        }
    }

    @Test func redriveFailedDeliveries() async throws {
        try await Self.check(.redrive) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RedriveFailedDeliveries.run(endpoint: nil, on: $0) }
        }
    }
}
