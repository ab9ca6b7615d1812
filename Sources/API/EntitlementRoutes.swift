import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// GET /v1/users/{user_id}/entitlements: what the user may use now (non-consumables, non-renewing
/// purchases, subscriptions in an unexpired period), one entry per product, read from the ledger
/// beside the grants history. A refund or revocation removes the entry as soon as it is recorded.
struct EntitlementRoutes<Context: RequestContext> {
    let pool: PostgresPool
    let billingRetryAccess: Bool

    func register(on group: RouterGroup<Context>) {
        group.get("users/:user_id/entitlements") { _, context in try await entitlements(context: context) }
    }

    struct EntitlementList: Encodable {
        var userId: String
        var entitlements: [Entitlement]
        /// When the answer was read: an entitlement with an `expires_date` before a later
        /// moment may have lapsed by then.
        var asOf: Date
    }

    func entitlements(context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let asOf = Date()
        let list = try await pool.withConnection { [billingRetryAccess] in try ListEntitlements.run(userID: userID, billingRetryAccess: billingRetryAccess, on: $0) }
        return try JSONBody.response(EntitlementList(userId: userID, entitlements: list, asOf: asOf))
    }
}
