import Foundation
import Postgres

/// Claims notifications to apply: oldest signedDate first, and only the oldest open one of each
/// purchase (no queued or applying notification of the same original transaction signed before
/// it), so a purchase's notifications apply in Apple's order even across workers. A notification
/// waiting for its retry holds back the later ones of its purchase. `FOR UPDATE SKIP LOCKED`: no
/// two workers take the same row.
public enum ClaimNotifications {
    static let sql = """
        UPDATE receiptq.notifications AS n
        SET state = 'applying', locked_by = $2, locked_until = now() + $3 * interval '1 millisecond', attempts = n.attempts + 1
        WHERE n.notification_uuid IN (
            SELECT c.notification_uuid FROM receiptq.notifications c
            WHERE c.state = 'queued' AND c.run_at <= now()                                         -- notifications_ready_idx
              AND NOT EXISTS (
                  SELECT 1 FROM receiptq.notifications e                                            -- notifications_open_idx
                  WHERE c.original_transaction_id IS NOT NULL AND e.original_transaction_id = c.original_transaction_id
                    AND e.state IN ('queued', 'applying')
                    AND (e.signed_date, e.notification_uuid) < (c.signed_date, c.notification_uuid))
            ORDER BY c.signed_date, c.notification_uuid
            LIMIT $1
            FOR UPDATE SKIP LOCKED)
        RETURNING n.notification_uuid, n.attempts, n.notification_type, n.subtype, n.environment,
                  (extract(epoch FROM n.signed_date) * 1000)::bigint AS signed_ms, n.source, n.signed_payload, n.received_at
        """

    public static func run(limit: Int, worker: String, lease: Duration, on connection: PostgresConnection) throws -> [NotificationLease] {
        try connection.query(sql, [limit, worker, lease.milliseconds]).map { row in
            NotificationLease(
                uuid: try row.decode("notification_uuid"), attempt: try row.decode("attempts"), type: try row.decode("notification_type"),
                subtype: try row.decodeIfPresent("subtype"), environment: try row.decode("environment"),
                signedDate: Date(timeIntervalSince1970: Double(try row.decode("signed_ms", as: Int64.self)) / 1000),
                source: NewNotification.Source(rawValue: try row.decode("source")) ?? .endpoint,
                signedPayload: try row.decode("signed_payload"), receivedAt: try row.decode("received_at"))
        }.sorted { ($0.signedDate, $0.uuid.uuidString) < ($1.signedDate, $1.uuid.uuidString) }
    }
}
