import Foundation
import Postgres

/// Takes up to `want` tokens from one bucket in one short statement: refill by the time since the
/// last take, grant what is there (nothing while paused), keep the rest. The row lock (taken by
/// the CTE's `FOR UPDATE`, by primary key `api_rate_budgets_pkey`) serialises concurrent takers,
/// and each sees the row its predecessor left, so the fleet together is never granted more than
/// `capacity + rate × elapsed`.
///
/// The clock is the database's (`clock_timestamp()`, read once), and the answer says how long to
/// wait in milliseconds rather than until when: workers on hosts whose clocks disagree still pace
/// themselves correctly. A taker whose clock reading precedes its predecessor's adds no tokens
/// (`greatest(0, …)`) and leaves `refilled_at` where it was, so time is never counted twice.
public enum TakeRateTokens {
    static let sql = """
        WITH clock AS (SELECT clock_timestamp() AS at),
        bucket AS (
            SELECT b.bundle_id, b.endpoint, b.environment, b.rate_per_second, b.paused_until, clock.at,
                   least(b.capacity, b.tokens + b.rate_per_second
                         * greatest(0, extract(epoch FROM clock.at - b.refilled_at)::float8)) AS available
            FROM receiptq.api_rate_budgets AS b, clock
            WHERE b.bundle_id = $1 AND b.endpoint = $2 AND b.environment = $3   -- api_rate_budgets_pkey
            FOR UPDATE OF b
        ),
        decided AS (
            SELECT bucket.*,
                   CASE WHEN paused_until > at THEN 0 ELSE least($4::int, floor(available)::int) END AS granted
            FROM bucket
        )
        UPDATE receiptq.api_rate_budgets AS b
        SET tokens = d.available - d.granted,
            refilled_at = greatest(b.refilled_at, d.at),
            granted_total = b.granted_total + d.granted
        FROM decided AS d
        WHERE b.bundle_id = d.bundle_id AND b.endpoint = d.endpoint AND b.environment = d.environment
        RETURNING d.granted, b.tokens, b.rate_per_second,
                  CASE WHEN d.paused_until > d.at THEN ceil(extract(epoch FROM d.paused_until - d.at)::float8 * 1000)
                       WHEN d.granted < $4::int THEN ceil(greatest(0, 1 - b.tokens) / b.rate_per_second * 1000)
                       ELSE 0 END::bigint AS wait_ms,
                  coalesce(d.paused_until > d.at, false) AS paused
        """

    /// - Returns: the grant, or `nil` when the bucket does not exist yet (`ConfigureRateBudget` first).
    public static func run(_ key: RateBudgetKey, want: Int, on connection: PostgresConnection) throws -> RateGrant? {
        let rows = try connection.query(sql, key.parameters + [max(1, want)])
        guard let row = rows.first else { return nil }
        return RateGrant(
            granted: try row.decode("granted"),
            tokensLeft: try row.decode("tokens"),
            ratePerSecond: try row.decode("rate_per_second"),
            wait: .milliseconds(try row.decode("wait_ms", as: Int64.self)),
            paused: try row.decode("paused"))
    }
}

/// What one take got.
public struct RateGrant: Sendable, Equatable {
    /// Tokens granted now: this many requests may be sent.
    public var granted: Int
    /// What the bucket holds after this take (fractional).
    public var tokensLeft: Double
    /// The bucket's rate, so a taker can space out what it got.
    public var ratePerSecond: Double
    /// When fewer than wanted were granted: how long until the next whole token, or until the pause
    /// ends. Zero when the whole want was granted.
    public var wait: Duration
    /// Apple's 429 pause is in force.
    public var paused: Bool

    public init(granted: Int, tokensLeft: Double, ratePerSecond: Double, wait: Duration, paused: Bool) {
        self.granted = granted
        self.tokensLeft = tokensLeft
        self.ratePerSecond = ratePerSecond
        self.wait = wait
        self.paused = paused
    }
}
