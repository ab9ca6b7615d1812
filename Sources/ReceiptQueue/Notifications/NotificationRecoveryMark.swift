import Foundation
import Postgres

/// The history recovery's high-water mark per environment (`receiptq.notification_recovery`):
/// how far Get Notification History has been read. A run claims an environment only when no run
/// touched it for `minimumGap` (several schedulers then do not all call Apple), reads from the
/// mark (less an overlap) to now, and advances the mark only when everything read was stored.
public enum NotificationRecoveryMark {
    static let ensureSQL = """
        INSERT INTO receiptq.notification_recovery (environment, checked_through)
        VALUES ($1, now() - $2 * interval '1 millisecond')
        ON CONFLICT (environment) DO NOTHING
        """
    static let claimSQL = """
        UPDATE receiptq.notification_recovery
        SET last_run_at = now()
        WHERE environment = $1 AND (last_run_at IS NULL OR last_run_at <= now() - $2 * interval '1 millisecond')
        RETURNING checked_through, now() AS now
        """
    static let advanceSQL = """
        UPDATE receiptq.notification_recovery
        SET checked_through = greatest(checked_through, to_timestamp($2 / 1000.0)), last_error = NULL, recovered_total = recovered_total + $3
        WHERE environment = $1
        """
    static let failedSQL = "UPDATE receiptq.notification_recovery SET last_error = $2 WHERE environment = $1"

    /// The mark and the database's now, when this run may recover `environment`; nil when another
    /// run did within `minimumGap`. The first run reads back `initialLookback`.
    public static func claim(environment: String, initialLookback: Duration, minimumGap: Duration,
                             on connection: PostgresConnection) throws -> (checkedThrough: Date, now: Date)? {
        try connection.query(ensureSQL, [environment, initialLookback.milliseconds])
        guard let row = try connection.query(claimSQL, [environment, minimumGap.milliseconds]).first else { return nil }
        return (try row.decode("checked_through"), try row.decode("now"))
    }

    public static func advance(environment: String, through: Date, recovered: Int, on connection: PostgresConnection) throws {
        try connection.query(advanceSQL, [environment, Int64((through.timeIntervalSince1970 * 1000).rounded(.down)), recovered])
    }

    public static func failed(environment: String, error: String, on connection: PostgresConnection) throws {
        try connection.query(failedSQL, [environment, String(error.prefix(500))])
    }
}
