import AppStoreServerAPI
import Foundation
import ReceiptQueue
import Synchronization

/// The App Store Server API gate every worker shares through the database: one token bucket per
/// (app, endpoint, environment) in `receiptq.api_rate_budgets`, taken in small batches, let out
/// evenly (`RateBudgetPacer`). A 429 seen by any worker pauses that endpoint for the whole fleet
/// until Apple's `Retry-After`.
///
/// Why in the worker and not a target of its own: the worker is the only process that calls Apple,
/// and the limiter is one of its services like the circuit breaker; the SQL lives with the other
/// statements in `ReceiptQueue`, and the pure pacing decision is unit-tested here like the gate's.
///
/// Generic over the clock (tests use a manual one); `wallClock` turns Apple's absolute `Retry-After`
/// into the clock's instants.
public final class FleetRateLimiter<C: Clock>: ServerAPIRequestGate where C.Duration == Duration, C.Instant: Sendable {
    public let configuration: FleetRateLimiterConfiguration
    private let store: any RateBudgetStore
    private let clock: C
    private let wallClock: @Sendable () -> Date
    private let buckets = Mutex<[RateBudgetKey: RateBudgetBucket<C>]>([:])

    public init(store: any RateBudgetStore, configuration: FleetRateLimiterConfiguration = .init(), clock: C,
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.wallClock = wallClock
    }

    public func permit(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String) async throws {
        try await bucket(endpoint, environment, bundleId).acquire()
    }

    public func pause(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String, until: Date) async {
        let bucket = bucket(endpoint, environment, bundleId)
        let remaining = max(0, until.timeIntervalSince(wallClock()))
        await bucket.pause(until: clock.now.advanced(by: .nanoseconds(Int64(remaining * 1e9))))
        // Best effort: if the database is away, this process still pauses, and the others find
        // Apple's 429 for themselves.
        try? await store.pause(bucket.key, until: until)
    }

    /// Returns when `consumer` may send one more request to `endpoint` within its `share` of the
    /// endpoint's budget: a fleet-wide bucket of its own (`<endpoint>.<consumer>` in
    /// `receiptq.api_rate_budgets`), refilling at `share ×` the endpoint's rate. It does not stand
    /// in for `permit`: the caller asks both (`BudgetShareGate`), so the endpoint's whole budget
    /// still bounds everyone together.
    public func permit(share: Double, of endpoint: ServerAPIEndpoint, for consumer: String, environment: ServerAPIEnvironment,
                       bundleId: String) async throws {
        let key = RateBudgetKey(bundleId: bundleId, endpoint: "\(endpoint.rawValue).\(consumer)", environment: environment.rawValue)
        try await bucket(key, rate: share * configuration.limits.rate(for: endpoint, in: environment)).acquire()
    }

    private func bucket(_ endpoint: ServerAPIEndpoint, _ environment: ServerAPIEnvironment, _ bundleId: String) -> RateBudgetBucket<C> {
        bucket(RateBudgetKey(bundleId: bundleId, endpoint: endpoint.rawValue, environment: environment.rawValue),
               rate: configuration.limits.rate(for: endpoint, in: environment))
    }

    private func bucket(_ key: RateBudgetKey, rate: Double) -> RateBudgetBucket<C> {
        buckets.withLock { buckets in
            if let bucket = buckets[key] { return bucket }
            let bucket = RateBudgetBucket(key: key, ratePerSecond: rate, capacity: configuration.capacity(forRate: rate),
                                          store: store, clock: clock, pacing: configuration.pacing, maximumJitter: configuration.maximumJitter)
            buckets[key] = bucket
            return bucket
        }
    }
}
