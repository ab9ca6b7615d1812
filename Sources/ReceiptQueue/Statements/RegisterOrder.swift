import Foundation
import Postgres

/// Registers an order the backend created before the purchase: its id is what an original-StoreKit
/// app passes as applicationUsername, its `app_account_token` (a UUID, given or made here) what a
/// StoreKit 2 app passes as `appAccountToken`. Idempotent: registering the same order again
/// changes nothing; the same order id with another user, product or token is a conflict.
///
/// One statement: the INSERT … ON CONFLICT DO NOTHING and, when it inserted nothing, the
/// existing row by primary key (`orders_pkey`).
public enum RegisterOrder {
    static let sql = """
        WITH inserted AS (
            INSERT INTO receiptq.orders (order_id, user_id, product_id, app_account_token) VALUES ($1, $2, $3, $4::uuid)
            ON CONFLICT DO NOTHING
            RETURNING order_id, user_id, product_id, state, created_at, app_account_token::text AS app_account_token
        )
        SELECT true AS created, * FROM inserted
        UNION ALL
        SELECT false, order_id, user_id, product_id, state, created_at, app_account_token::text
        FROM receiptq.orders WHERE order_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)   -- orders_pkey
        """

    /// A concurrent registration that committed after the statement's snapshot makes the INSERT
    /// skip the row while the SELECT cannot see it yet; the second try sees it.
    static let lookupSQL = """
        SELECT false AS created, order_id, user_id, product_id, state, created_at, app_account_token::text AS app_account_token
        FROM receiptq.orders WHERE order_id = $1   -- orders_pkey
        """

    public enum Result: Sendable, Equatable {
        case created(Order)
        /// The same order was registered before; nothing changed.
        case existing(Order)
        /// This order id belongs to another user or product.
        case conflicting(Order)
    }

    /// - Parameter appAccountToken: the token the backend chose; nil: a new one is made (a
    ///   repeat of an order made that way keeps the first one's).
    public static func run(orderID: String, userID: String, productID: String, appAccountToken: UUID? = nil,
                           on connection: PostgresConnection) throws -> Result {
        let token = appAccountToken ?? UUID()
        var rows = try connection.query(sql, [orderID, userID, productID, token.uuidString])
        if rows.first == nil { rows = try connection.query(lookupSQL, [orderID]) }
        guard let row = rows.first else {
            // The token is taken by another order (ON CONFLICT on its unique index).
            return .conflicting(Order(orderID: orderID, userID: userID, productID: productID, state: "pending", createdAt: Date(),
                                      appAccountToken: appAccountToken))
        }
        let order = Order(orderID: try row.decode("order_id"), userID: try row.decode("user_id"),
                          productID: try row.decode("product_id"), state: try row.decode("state"),
                          createdAt: try row.decode("created_at"),
                          appAccountToken: try row.decodeIfPresent("app_account_token"))
        if try row.decode("created", as: Bool.self) { return .created(order) }
        let sameToken = appAccountToken == nil || appAccountToken == order.appAccountToken
        return order.userID == userID && order.productID == productID && sameToken ? .existing(order) : .conflicting(order)
    }
}

/// A registered order as stored.
public struct Order: Sendable, Equatable, Codable {
    public var orderID: String
    public var userID: String
    public var productID: String
    /// pending, fulfilled or cancelled.
    public var state: String
    public var createdAt: Date
    /// What a StoreKit 2 app passes as `Product.PurchaseOption.appAccountToken` for this order.
    public var appAccountToken: UUID?
}
