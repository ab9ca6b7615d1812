import Foundation
import Postgres

/// Records Apple's 429 for the whole fleet: no token is granted before `until` (Apple's
/// `Retry-After`), the bucket is emptied, and refilling restarts at `until`, so the fleet resumes
/// at the budgeted rate instead of with a burst. A later pause never shortens an earlier one. By
/// primary key (`api_rate_budgets_pkey`).
public enum PauseRateBudget {
    static let sql = """
        UPDATE receiptq.api_rate_budgets
        SET paused_until = greatest(paused_until, to_timestamp($4::float8 / 1000)),
            tokens = 0,
            refilled_at = greatest(refilled_at, to_timestamp($4::float8 / 1000)),
            pauses_total = pauses_total + 1
        WHERE bundle_id = $1 AND endpoint = $2 AND environment = $3   -- api_rate_budgets_pkey
        RETURNING paused_until
        """

    /// - Returns: the pause now in force, or `nil` when the bucket does not exist.
    @discardableResult
    public static func run(_ key: RateBudgetKey, until: Date, on connection: PostgresConnection) throws -> Date? {
        let milliseconds = Int64((until.timeIntervalSince1970 * 1_000).rounded(.up))
        return try connection.query(sql, key.parameters + [milliseconds]).first?.decode("paused_until")
    }
}
