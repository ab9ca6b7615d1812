import Foundation
import Postgres

/// Puts failed or quarantined notifications back in the queue with a fresh attempt count, once
/// their cause is fixed (a root, bundle id or app id configured, a bug fixed): `receiptq
/// notifications redrive`. A worker verifies each again before it applies it.
public enum RedriveNotifications {
    static let byIDSQL = """
        UPDATE receiptq.notifications
        SET state = 'queued', attempts = 0, run_at = now(), last_error = NULL, outcome = NULL
        WHERE notification_uuid = ANY($1::uuid[]) AND state IN ('failed', 'quarantined')
        RETURNING notification_uuid
        """
    static let recentSQL = """
        UPDATE receiptq.notifications
        SET state = 'queued', attempts = 0, run_at = now(), last_error = NULL, outcome = NULL
        WHERE state = 'failed' AND received_at >= now() - $1 * interval '1 millisecond'
        RETURNING notification_uuid
        """

    /// Every quarantined notification (`notifications_quarantined_idx`).
    static let quarantinedSQL = """
        UPDATE receiptq.notifications
        SET state = 'queued', attempts = 0, run_at = now(), last_error = NULL, outcome = NULL
        WHERE state = 'quarantined'
        RETURNING notification_uuid
        """

    public static func runQuarantined(on connection: PostgresConnection) throws -> [UUID] {
        try connection.query(quarantinedSQL).map { try $0.decode("notification_uuid") }
    }

    public static func run(uuids: [UUID], on connection: PostgresConnection) throws -> [UUID] {
        try connection.query(byIDSQL, [uuids.map(\.uuidString)]).map { try $0.decode("notification_uuid") }
    }

    public static func run(receivedWithin: Duration, on connection: PostgresConnection) throws -> [UUID] {
        try connection.query(recentSQL, [receivedWithin.milliseconds]).map { try $0.decode("notification_uuid") }
    }
}
