import Foundation
import Postgres

/// A user's grants, oldest first: what the backend should deliver. Served by
/// `grants_user_idx` (user_id, granted_at).
public enum ListGrants {
    static let sql = """
        SELECT transaction_id, original_transaction_id, job_id, user_id, product_id, quantity,
               purchase_date, environment, order_id, unmatched, granted_at
        FROM receiptq.grants
        WHERE user_id = $1   -- grants_user_idx
        ORDER BY granted_at, transaction_id
        LIMIT $2
        """

    /// The oldest `limit` grants of `userID`.
    public static func run(userID: String, limit: Int, on connection: PostgresConnection) throws -> [Grant] {
        try connection.query(sql, [userID, limit]).map { row in
            Grant(transactionID: try row.decode("transaction_id"),
                  originalTransactionID: try row.decode("original_transaction_id"),
                  jobID: try row.decode("job_id"), userID: try row.decode("user_id"),
                  productID: try row.decode("product_id"), quantity: try row.decode("quantity"),
                  purchaseDate: try row.decodeIfPresent("purchase_date"), environment: try row.decode("environment"),
                  orderID: try row.decodeIfPresent("order_id"), unmatched: try row.decode("unmatched"),
                  grantedAt: try row.decode("granted_at"))
        }
    }
}

/// One row of the ledger: an Apple transaction granted to a user.
public struct Grant: Sendable, Equatable, Codable {
    public var transactionID: String
    public var originalTransactionID: String
    public var jobID: Int64
    public var userID: String
    public var productID: String
    public var quantity: Int
    public var purchaseDate: Date?
    /// Production or Sandbox.
    public var environment: String
    public var orderID: String?
    /// No registered order matched; granted anyway (the user paid).
    public var unmatched: Bool
    public var grantedAt: Date
}
