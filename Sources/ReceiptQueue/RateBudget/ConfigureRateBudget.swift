import Postgres

/// Creates a bucket, or sets the rate and capacity of an existing one (a worker started with new
/// limits). A new bucket starts empty and unpaused; an existing one keeps its tokens (clamped to
/// the new capacity) and any pause Apple imposed. By primary key (`api_rate_budgets_pkey`).
public enum ConfigureRateBudget {
    static let sql = """
        INSERT INTO receiptq.api_rate_budgets AS b (bundle_id, endpoint, environment, rate_per_second, capacity, tokens, refilled_at)
        VALUES ($1, $2, $3, $4, $5, 0, clock_timestamp())
        ON CONFLICT (bundle_id, endpoint, environment) DO UPDATE   -- api_rate_budgets_pkey
        SET rate_per_second = EXCLUDED.rate_per_second,
            capacity = EXCLUDED.capacity,
            tokens = least(b.tokens, EXCLUDED.capacity)
        """

    /// - Parameters:
    ///   - ratePerSecond: tokens added per second; must be positive.
    ///   - capacity: the most tokens the bucket holds (the largest burst); at least 1.
    public static func run(_ key: RateBudgetKey, ratePerSecond: Double, capacity: Double, on connection: PostgresConnection) throws {
        try connection.query(sql, key.parameters + [ratePerSecond, max(1, capacity)])
    }
}
