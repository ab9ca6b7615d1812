import Foundation
import Postgres
import ReceiptQueue

/// Where the fleet's buckets live. The limiter only needs these three operations; production uses
/// PostgreSQL (`PostgresRateBudgetStore`), so every worker on every host shares one budget.
public protocol RateBudgetStore: Sendable {
    func configure(_ key: RateBudgetKey, ratePerSecond: Double, capacity: Double) async throws
    /// `nil` when the bucket does not exist yet.
    func take(_ key: RateBudgetKey, want: Int) async throws -> RateGrant?
    func pause(_ key: RateBudgetKey, until: Date) async throws
}

/// The buckets in `receiptq.api_rate_budgets`, one short statement per operation on the pool.
public struct PostgresRateBudgetStore: RateBudgetStore {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func configure(_ key: RateBudgetKey, ratePerSecond: Double, capacity: Double) async throws {
        try await pool.withConnection { try ConfigureRateBudget.run(key, ratePerSecond: ratePerSecond, capacity: capacity, on: $0) }
    }

    public func take(_ key: RateBudgetKey, want: Int) async throws -> RateGrant? {
        try await pool.withConnection { try TakeRateTokens.run(key, want: want, on: $0) }
    }

    public func pause(_ key: RateBudgetKey, until: Date) async throws {
        try await pool.withConnection { _ = try PauseRateBudget.run(key, until: until, on: $0) }
    }
}
