import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Each statement that moves consumption requests agrees with `ConsumptionLifecycle.next`.
@Suite("Lifecycle: the consumption request statements agree with ConsumptionLifecycle.next")
struct ConsumptionAgreementTests {
    static let lifecycle = ConsumptionLifecycle()
    typealias Row = QueueAgreement<ConsumptionLifecycle>.Row<ConsumptionLease>

    /// Apple's deadline an hour ahead, or a minute past.
    static let deadlines: [(String, Duration)] = [("deadline ahead", .seconds(3600)), ("deadline passed", .seconds(-60))]

    /// One request in every (state, deadline), leased by "w" when sending (lease and run_at past).
    static func rows(_ fixture: QueueFixture) async throws -> [Row] {
        var rows: [Row] = []
        for state in ConsumptionState.allCases {
            for (budget, until) in deadlines {
                let uuid = UUID()
                let leased = state == .sending
                let row = try await fixture.pool.query("""
                    INSERT INTO receiptq.consumption_requests (notification_uuid, transaction_id, environment, deadline, state, attempts,
                                                               run_at, locked_by, locked_until)
                    VALUES ($1, 'tx', 'Sandbox', now() + $2 * interval '1 millisecond', $3, 1, now() - interval '1 second',
                            CASE WHEN $4 THEN 'w' END, CASE WHEN $4 THEN now() - interval '1 second' END)
                    RETURNING deadline
                    """, [uuid, until.milliseconds, state.rawValue, leased])[0]
                let deadline: Date = try row.decode("deadline")
                let lease = ConsumptionLease(notificationUUID: uuid, attempt: 1, transactionID: "tx", environment: "Sandbox", deadline: deadline,
                                             userID: nil, consented: nil, grantedAt: nil, revoked: false, appAccountToken: nil, firstGrantAt: nil,
                                             dollarsPurchased: 0, dollarsRefunded: 0)
                rows.append(Row(key: lease, state: state, facts: .init(deadline: deadline), budget: budget))
            }
        }
        return rows
    }

    static func check(_ event: ConsumptionLifecycle.Event, now: @autoclosure () -> Date = Date(),
                      _ statement: (QueueFixture, [Row]) async throws -> Void) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await rows(fixture)
        try await statement(fixture, rows)
        try await QueueAgreement(spec: lifecycle).expect(event, rows, now: now()) { lease in
            ConsumptionState(rawValue: try await fixture.pool.query(
                "SELECT state FROM receiptq.consumption_requests WHERE notification_uuid = $1",
                [lease.notificationUUID])[0].decode("state", as: String.self))
        }
    }

    @Test func claimConsumptionRequests() async throws {
        try await Self.check(.claim) { fixture, _ in
            _ = try await fixture.pool.withConnection { try ClaimConsumptionRequests.run(limit: 100, worker: "claimer", lease: .seconds(30), on: $0) }
        }
    }

    @Test func finishConsumptionRequestSent() async throws {
        try await Self.check(.complete(.sent)) { fixture, rows in try await Self.finish(fixture, rows, .sent) }
    }

    @Test func finishConsumptionRequestNoConsent() async throws {
        try await Self.check(.complete(.noConsent)) { fixture, rows in try await Self.finish(fixture, rows, .noConsent) }
    }

    @Test func finishConsumptionRequestFailed() async throws {
        try await Self.check(.complete(.failed)) { fixture, rows in try await Self.finish(fixture, rows, .failed("refused")) }
    }

    /// A retry due in ten minutes: before an hour's deadline it queues; past the deadline it fails.
    @Test func finishConsumptionRequestRetry() async throws {
        let now = Date()
        try await Self.check(.complete(.retry(at: now.addingTimeInterval(600))), now: now) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection {
                    try FinishConsumptionRequest.run(row.key, .retry(after: .seconds(600), error: "e"), worker: "w", now: now, on: $0)
                }
            }
        }
    }

    static func finish(_ fixture: QueueFixture, _ rows: [Row], _ ending: FinishConsumptionRequest.Ending) async throws {
        for row in rows {
            _ = try await fixture.pool.withConnection { try FinishConsumptionRequest.run(row.key, ending, worker: "w", on: $0) }
        }
    }

    @Test func rescueConsumptionLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RescueNotificationLeases.run(limit: 100, on: $0) }
        }
    }

    /// `receiptq release --worker` ends a lease as the scheduler ends an expired one.
    @Test func releaseWorkerLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.transaction { try ReleaseWorkerLeases.run(worker: "w", on: $0) }
        }
    }

    @Test func expireConsumptionRequests() async throws {
        try await Self.check(.deadlineCheck) { fixture, _ in
            _ = try await fixture.pool.withConnection { try ExpireConsumptionRequests.run(limit: 100, on: $0) }
        }
    }
}
