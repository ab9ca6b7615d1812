import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// GET /v1/users/{user_id}/subscriptions: each of the user's subscriptions as the model knows it
/// — the product in effect, its state, expiry (extensions included), what it renews to, the offer
/// and price-increase consent — expired and revoked ones included. Entitlements say what the user
/// may use now; this says why.
struct SubscriptionRoutes<Context: RequestContext> {
    let pool: PostgresPool

    func register(on group: RouterGroup<Context>) {
        group.get("users/:user_id/subscriptions") { _, context in try await subscriptions(context: context) }
    }

    struct SubscriptionList: Encodable {
        var userId: String
        var subscriptions: [SubscriptionView]
        var asOf: Date
    }

    func subscriptions(context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let asOf = Date()
        let list = try await pool.withConnection { try ListSubscriptions.run(userID: userID, on: $0) }
        return try JSONBody.response(SubscriptionList(userId: userID, subscriptions: list, asOf: asOf))
    }
}
