import AppStoreServerAPI
import Foundation

/// The gate of one consumer that may spend at most a share of one endpoint's budget: before each
/// request to that endpoint it takes a permit from the consumer's own fleet-wide bucket (`share ×`
/// the endpoint's rate, `FleetRateLimiter.permit(share:…)`), then one from the endpoint's bucket as
/// every caller does. So the consumer, across the whole fleet, never sends more than its share, and
/// everyone together never more than the endpoint's budget; what the consumer leaves stays free
/// for the others (another process of the operator's with the same key, a support call, a burst of
/// `receiptq reconcile`). Requests to other endpoints pass to the limiter unchanged; a 429 pauses
/// the endpoint for everyone, as it does without the cap.
///
/// Status reconciliation runs behind one (`--reconcile-budget-share`): a backfill or a schedule that
/// makes millions of subscriptions due at once cannot take all of Get All Subscription Statuses.
public struct BudgetShareGate<C: Clock>: ServerAPIRequestGate where C.Duration == Duration, C.Instant: Sendable {
    public let limiter: FleetRateLimiter<C>
    public let endpoint: ServerAPIEndpoint
    /// The name of the consumer's bucket (`<endpoint>.<consumer>` in `receiptq.api_rate_budgets`).
    public let consumer: String
    /// The fraction of `endpoint`'s rate the consumer may use, in (0, 1].
    public let share: Double

    public init(limiter: FleetRateLimiter<C>, endpoint: ServerAPIEndpoint, consumer: String, share: Double) {
        precondition(share > 0 && share <= 1, "a budget share is in (0, 1]")
        self.limiter = limiter
        self.endpoint = endpoint
        self.consumer = consumer
        self.share = share
    }

    public func permit(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String) async throws {
        if endpoint == self.endpoint {
            try await limiter.permit(share: share, of: endpoint, for: consumer, environment: environment, bundleId: bundleId)
        }
        try await limiter.permit(endpoint, environment: environment, bundleId: bundleId)
    }

    public func pause(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, bundleId: String, until: Date) async {
        await limiter.pause(endpoint, environment: environment, bundleId: bundleId, until: until)
    }
}
