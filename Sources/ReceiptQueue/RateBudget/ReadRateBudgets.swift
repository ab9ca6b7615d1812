import Foundation
import Postgres

/// The buckets as they stand, for ops (`receiptq.api_rate_budget_status` is the view) and tests.
/// Reads the whole table: one row per app, endpoint and environment, a few dozen at most.
public enum ReadRateBudgets {
    static let sql = """
        SELECT bundle_id, endpoint, environment, rate_per_second, capacity, tokens, paused_until, granted_total, pauses_total
        FROM receiptq.api_rate_budgets
        ORDER BY bundle_id, endpoint, environment
        """

    public struct Budget: Sendable, Equatable {
        public var key: RateBudgetKey
        public var ratePerSecond: Double
        public var capacity: Double
        /// As of the last take (not refilled to now).
        public var tokens: Double
        public var pausedUntil: Date?
        public var grantedTotal: Int64
        public var pausesTotal: Int64
    }

    public static func run(on connection: PostgresConnection) throws -> [Budget] {
        try connection.query(sql).map { row in
            Budget(key: RateBudgetKey(bundleId: try row.decode("bundle_id"), endpoint: try row.decode("endpoint"),
                                      environment: try row.decode("environment")),
                   ratePerSecond: try row.decode("rate_per_second"), capacity: try row.decode("capacity"),
                   tokens: try row.decode("tokens"), pausedUntil: try row.decodeIfPresent("paused_until"),
                   grantedTotal: try row.decode("granted_total"), pausesTotal: try row.decode("pauses_total"))
        }
    }
}
