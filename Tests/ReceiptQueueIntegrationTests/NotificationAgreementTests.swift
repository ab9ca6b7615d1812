import Foundation
import Postgres
import ReceiptQueue
import Testing

/// Each statement that moves notifications agrees with `NotificationLifecycle.next`.
@Suite("Lifecycle: the notification statements agree with NotificationLifecycle.next")
struct NotificationAgreementTests {
    static let lifecycle = NotificationLifecycle(maxAttempts: 5, maxExpiredLeases: 8)
    typealias Row = QueueAgreement<NotificationLifecycle>.Row<NotificationLease>

    /// Claims so far: budget left, retries spent, expired leases spent.
    static let budgets: [(String, Int)] = [("budget left", 1), ("retries spent", 5), ("leases spent", 8)]

    /// One notification in every (state, budget), leased by "w" when applying (lease and run_at past).
    static func rows(_ fixture: QueueFixture) async throws -> [Row] {
        var rows: [Row] = []
        for state in NotificationQueueState.allCases {
            for (budget, attempts) in budgets {
                let uuid = UUID()
                let leased = state == .applying
                let row = try await fixture.pool.query("""
                    INSERT INTO receiptq.notifications (notification_uuid, notification_type, environment, signed_date, signed_payload,
                                                        state, attempts, run_at, locked_by, locked_until, received_at)
                    VALUES ($1, 'TEST', 'Sandbox', now() - interval '1 minute', 'payload', $2, $3, now() - interval '1 second',
                            CASE WHEN $4 THEN 'w' END, CASE WHEN $4 THEN now() - interval '1 second' END, now() - interval '1 minute')
                    RETURNING received_at
                    """, [uuid, state.rawValue, attempts, leased])[0]
                let lease = NotificationLease(uuid: uuid, attempt: attempts, type: "TEST", subtype: nil, environment: "Sandbox",
                                              signedDate: Date(), source: .endpoint, signedPayload: "payload",
                                              receivedAt: try row.decode("received_at"))
                rows.append(Row(key: lease, state: state, facts: .init(attempts: attempts), budget: budget))
            }
        }
        return rows
    }

    static func check(_ event: NotificationLifecycle.Event,
                      _ statement: (QueueFixture, [Row]) async throws -> Void) async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await rows(fixture)
        try await statement(fixture, rows)
        try await QueueAgreement(spec: lifecycle).expect(event, rows) { lease in
            NotificationQueueState(rawValue: try await fixture.pool.query(
                "SELECT state FROM receiptq.notifications WHERE notification_uuid = $1", [lease.uuid])[0].decode("state", as: String.self))
        }
    }

    /// The API stores each notification in the state the lifecycle says it arrives in.
    @Test func enqueueNotificationsStoresEachInItsArrivalState() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let reasons: [String?] = [nil, "bundle id com.other.app is not this app's", nil, "environment Sandbox refused"]
        let notifications = reasons.map { reason in
            NewNotification(uuid: UUID(), type: "TEST", subtype: nil, environment: "Sandbox", signedDate: Date(), originalTransactionID: nil,
                            transactionID: nil, signedPayload: "payload", source: .endpoint, quarantineReason: reason)
        }
        #expect(try await fixture.pool.withConnection { try EnqueueNotifications.run(notifications, on: $0) } == [true, true, true, true])
        for notification in notifications {
            let row = try await fixture.pool.query("SELECT state, last_error FROM receiptq.notifications WHERE notification_uuid = $1",
                                                   [notification.uuid])[0]
            #expect(try row.decode("state", as: String.self)
                    == NotificationLifecycle.arrival(quarantineReason: notification.quarantineReason).rawValue)
            #expect(try row.decodeIfPresent("last_error", as: String.self) == notification.quarantineReason)
        }
    }

    /// Apple retries, and the history recovery finds notifications that did arrive: a UUID stored
    /// before, or twice in one batch, is stored once, and only its first arrival reads `created`.
    @Test func enqueueNotificationsStoresAUUIDOnceWhereverItRepeats() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        @Sendable func notification(_ uuid: UUID, payload: String) -> NewNotification {
            NewNotification(uuid: uuid, type: "TEST", subtype: nil, environment: "Sandbox", signedDate: Date(), originalTransactionID: nil,
                            transactionID: nil, signedPayload: payload, source: .endpoint, quarantineReason: nil)
        }
        let (old, new, other) = (UUID(), UUID(), UUID())
        let first = [notification(old, payload: "first")]
        #expect(try await fixture.pool.withConnection { try EnqueueNotifications.run(first, on: $0) } == [true])
        let batch = [notification(new, payload: "a"), notification(old, payload: "again"), notification(new, payload: "b"),
                     notification(other, payload: "c")]
        for _ in 0..<7 {   // past the executions after which a prepared statement may get a generic plan
            let one = [notification(UUID(), payload: "x")]
            _ = try await fixture.pool.withConnection { try EnqueueNotifications.run(one, on: $0) }
        }
        #expect(try await fixture.pool.withConnection { try EnqueueNotifications.run(batch, on: $0) } == [true, false, false, true])
        let payloads = try await fixture.pool.query("""
            SELECT signed_payload FROM receiptq.notifications WHERE notification_uuid = ANY($1::uuid[]) ORDER BY signed_payload
            """, [[old, new, other]]).map { try $0.decode("signed_payload", as: String.self) }
        #expect(payloads == ["a", "c", "first"])
    }

    @Test func claimNotifications() async throws {
        try await Self.check(.claim) { fixture, _ in
            _ = try await fixture.pool.withConnection { try ClaimNotifications.run(limit: 100, worker: "claimer", lease: .seconds(30), on: $0) }
        }
    }

    @Test func applyNotification() async throws {
        try await Self.check(.complete(.applied)) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.transaction { try ApplyNotification.run(row.key, actions: [], worker: "w", on: $0) }
            }
        }
    }

    @Test func finishNotificationRetry() async throws {
        try await Self.check(.complete(.retry)) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection {
                    try FinishNotification.run(row.key, .retry(after: .zero, error: "e"), worker: "w", lifecycle: Self.lifecycle, on: $0)
                }
            }
        }
    }

    @Test func finishNotificationFailed() async throws {
        try await Self.check(.complete(.failed)) { fixture, rows in
            for row in rows {
                _ = try await fixture.pool.withConnection {
                    try FinishNotification.run(row.key, .failed(reason: "f"), worker: "w", lifecycle: Self.lifecycle, on: $0)
                }
            }
        }
    }

    @Test func rescueNotificationLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.withConnection {
                try RescueNotificationLeases.run(limit: 100, maxAttempts: Self.lifecycle.maxExpiredLeases, on: $0)
            }
        }
    }

    /// `receiptq release --worker` ends a lease as the scheduler ends an expired one.
    @Test func releaseWorkerLeases() async throws {
        try await Self.check(.leaseExpired) { fixture, _ in
            _ = try await fixture.pool.transaction {
                try ReleaseWorkerLeases.run(worker: "w", budgets: .init(notifications: Self.lifecycle), on: $0)
            }
        }
    }

    @Test func redriveNotificationsByID() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let rows = try await Self.rows(fixture)
        _ = try await fixture.pool.withConnection { try RedriveNotifications.run(uuids: rows.map(\.key.uuid), on: $0) }
        // By id, both a failed and a quarantined notification go back.
        for row in rows {
            let expected = Self.lifecycle.next(row.state, on: .redrive, facts: row.facts, now: Date())
                ?? Self.lifecycle.next(row.state, on: .releaseQuarantine, facts: row.facts, now: Date()) ?? row.state
            let actual = try await fixture.pool.query("SELECT state FROM receiptq.notifications WHERE notification_uuid = $1",
                                                      [row.key.uuid])[0].decode("state", as: String.self)
            #expect(actual == expected.rawValue, "redrive by id from \(row.state.rawValue): \(actual)")
        }
    }

    @Test func redriveRecentlyFailedNotifications() async throws {
        try await Self.check(.redrive) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RedriveNotifications.run(receivedWithin: .seconds(3600), on: $0) }
        }
    }

    @Test func redriveQuarantinedNotifications() async throws {
        try await Self.check(.releaseQuarantine) { fixture, _ in
            _ = try await fixture.pool.withConnection { try RedriveNotifications.runQuarantined(on: $0) }
        }
    }
}
