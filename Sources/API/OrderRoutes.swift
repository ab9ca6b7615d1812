import Foundation
import Hummingbird
import Postgres
import ReceiptQueue

/// POST /v1/orders and GET /v1/users/{user_id}/grants.
struct OrderRoutes<Context: RequestContext> {
    let configuration: APIConfiguration
    let pool: PostgresPool

    /// Grants per page unless `?limit=` says otherwise, and the most a page may hold.
    static var defaultLimit: Int { 100 }
    static var maxLimit: Int { 1000 }

    func register(on group: RouterGroup<Context>) {
        group.post("orders") { request, _ in try await registerOrder(request) }
        group.get("users/:user_id/grants") { request, context in try await grants(request, context: context) }
    }

    struct OrderBody: Decodable {
        var orderID: String?
        var userID: String?
        var productID: String?
        var appAccountToken: String?
        enum CodingKeys: String, CodingKey {
            case orderID = "order_id", userID = "user_id", productID = "product_id", appAccountToken = "app_account_token"
        }
    }

    /// 201 when registered now, 200 when the same order was registered before, 409 when the
    /// order id is taken by another user or product.
    func registerOrder(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(OrderBody.self, from: request, limit: 16 * 1024)
        let orderID = try FieldRules.identifier(body.orderID, "order_id")
        let userID = try FieldRules.identifier(body.userID, "user_id")
        let productID = try FieldRules.identifier(body.productID, "product_id")
        let chosen = try FieldRules.optionalUUID(body.appAccountToken, "app_account_token")
        let result = try await pool.withConnection {
            try RegisterOrder.run(orderID: orderID, userID: userID, productID: productID, appAccountToken: chosen, on: $0)
        }
        switch result {
        case .created(let order): return try JSONBody.response(order, status: .created)
        case .existing(let order): return try JSONBody.response(order)
        case .conflicting:
            throw Problem(.conflictingOrder, "order_id is already registered with another user_id, product_id or app_account_token (or the token with another order)")
        }
    }

    struct GrantList: Encodable {
        var userId: String
        var grants: [Grant]
        /// The next page's URL (`?cursor=…`), or null on the last page.
        var next: String?
    }

    /// The user's grants, newest first, a page at a time (`?limit=`, default 100, at most 1000;
    /// `?cursor=` from the previous page's `next`).
    func grants(_ request: Request, context: Context) async throws -> Response {
        let userID = try FieldRules.pathIdentifier(context.parameters, "user_id")
        let limit = try pageSize(request)
        var cursor: ListGrants.Cursor?
        if let token = request.uri.queryParameters.get("cursor") {
            guard let parsed = ListGrants.Cursor(token: token) else {
                throw Problem.invalid("cursor", "cursor must be the next link of a previous page")
            }
            cursor = parsed
        }
        let after = cursor
        let page = try await pool.withConnection { try ListGrants.run(userID: userID, limit: limit, after: after, on: $0) }
        let next = page.next.map { next in
            "/v1/users/\(userID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? userID)/grants"
                + "?limit=\(limit)&cursor=\(next.token)"
        }
        return try JSONBody.response(GrantList(userId: userID, grants: page.grants, next: next))
    }

    private func pageSize(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return Self.defaultLimit }
        guard let value = Int(text), (1...Self.maxLimit).contains(value) else {
            throw Problem.invalid("limit", "limit must be an integer from 1 to \(Self.maxLimit)")
        }
        return value
    }
}
