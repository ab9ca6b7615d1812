import Foundation
import Postgres

/// Registers an order the backend created before the purchase (its id is what the app passes
/// to StoreKit as applicationUsername). Idempotent: registering the same order again changes
/// nothing; the same order id with another user or product is a conflict.
///
/// One statement: the INSERT … ON CONFLICT DO NOTHING and, when it inserted nothing, the
/// existing row by primary key (`orders_pkey`).
public enum RegisterOrder {
    static let sql = """
        WITH inserted AS (
            INSERT INTO receiptq.orders (order_id, user_id, product_id) VALUES ($1, $2, $3)
            ON CONFLICT (order_id) DO NOTHING
            RETURNING order_id, user_id, product_id, state, created_at
        )
        SELECT true AS created, * FROM inserted
        UNION ALL
        SELECT false, order_id, user_id, product_id, state, created_at
        FROM receiptq.orders WHERE order_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)   -- orders_pkey
        """

    /// A concurrent registration that committed after the statement's snapshot makes the INSERT
    /// skip the row while the SELECT cannot see it yet; the second try sees it.
    static let lookupSQL = """
        SELECT false AS created, order_id, user_id, product_id, state, created_at
        FROM receiptq.orders WHERE order_id = $1   -- orders_pkey
        """

    public enum Result: Sendable, Equatable {
        case created(Order)
        /// The same order was registered before; nothing changed.
        case existing(Order)
        /// This order id belongs to another user or product.
        case conflicting(Order)
    }

    public static func run(orderID: String, userID: String, productID: String, on connection: PostgresConnection) throws -> Result {
        var rows = try connection.query(sql, [orderID, userID, productID])
        if rows.first == nil { rows = try connection.query(lookupSQL, [orderID]) }
        guard let row = rows.first else { throw PostgresError(.server, "order vanished while registering it") }
        let order = Order(orderID: try row.decode("order_id"), userID: try row.decode("user_id"),
                          productID: try row.decode("product_id"), state: try row.decode("state"),
                          createdAt: try row.decode("created_at"))
        if try row.decode("created", as: Bool.self) { return .created(order) }
        return order.userID == userID && order.productID == productID ? .existing(order) : .conflicting(order)
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
}
