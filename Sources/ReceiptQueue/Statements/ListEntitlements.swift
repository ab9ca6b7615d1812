import Foundation
import Postgres

/// What a user holds now, one entry per product: a non-consumable or non-renewing purchase not
/// revoked, or an auto-renewable subscription whose latest period is not revoked and not yet
/// expired. Consumables are spent by the backend when granted, so they are history (the grants
/// resource), never entitlements. A purchase of unknown type (no catalog entry, no signed `type`,
/// no expiry) is left out rather than guessed at: register the product in `receiptq.products`.
///
/// Read from the ledger alone, at the database's clock: a refund, a revocation or a renewal
/// shows here as soon as its grant row changes. Served by `grants_entitlement_idx`.
public enum ListEntitlements {
    /// Users own few products; a page this large is never cut in practice, and a bound keeps a
    /// pathological ledger from building an unbounded answer.
    public static let limit = 1000

    static let sql = """
        SELECT DISTINCT ON (product_id)
               product_id, product_type, transaction_id, original_transaction_id, purchase_date, expires_date,
               ownership_type, environment, order_id, app_account_token
        FROM receiptq.grants
        WHERE user_id = $1                                                      -- grants_entitlement_idx
          AND revoked_at IS NULL
          AND (product_type IN ('non_consumable', 'non_renewing', 'auto_renewable'))
          AND (product_type <> 'auto_renewable' OR expires_date > now())
          AND (product_type <> 'non_renewing' OR expires_date IS NULL OR expires_date > now())
        ORDER BY product_id, expires_date DESC NULLS LAST, purchase_date DESC NULLS LAST, purchase_key
        LIMIT $2
        """

    public static func run(userID: String, on connection: PostgresConnection) throws -> [Entitlement] {
        try connection.query(sql, [userID, limit]).map(Entitlement.init(row:))
    }
}

/// A product the user may use now.
public struct Entitlement: Sendable, Equatable, Codable {
    public var productID: String
    /// non_consumable, non_renewing or auto_renewable.
    public var productType: String
    /// The transaction that entitles: for a subscription, the latest period's.
    public var transactionID: String
    public var originalTransactionID: String
    public var purchaseDate: Date?
    /// Subscriptions: when the current period ends (the entitlement lapses unless a renewal is
    /// recorded before then). Nil for a non-consumable.
    public var expiresDate: Date?
    /// PURCHASED or FAMILY_SHARED.
    public var ownershipType: String
    public var environment: String
    public var orderID: String?
    public var appAccountToken: UUID?

    init(row: PostgresRow) throws {
        productID = try row.decode("product_id")
        productType = try row.decode("product_type")
        transactionID = try row.decode("transaction_id")
        originalTransactionID = try row.decode("original_transaction_id")
        purchaseDate = try row.decodeIfPresent("purchase_date")
        expiresDate = try row.decodeIfPresent("expires_date")
        ownershipType = try row.decode("ownership_type")
        environment = try row.decode("environment")
        orderID = try row.decodeIfPresent("order_id")
        appAccountToken = try row.decodeIfPresent("app_account_token")
    }
}
