import Foundation
import Postgres

/// What a user holds now, one entry per product: a non-consumable or non-renewing purchase not
/// revoked, or an auto-renewable subscription whose latest period is not revoked and not yet
/// expired. Consumables are spent by the backend when granted, so they are history (the grants
/// resource), never entitlements. A purchase of unknown type (no catalog entry, no signed `type`,
/// no expiry) is left out rather than guessed at: register the product in `receiptq.products`.
///
/// An auto-renewable subscription with a model (`receiptq.subscriptions.model`) entitles through
/// the product in effect in its group — an upgrade ends the old product's access at once, a
/// downgrade waits for the renewal — until its period ends, extensions included, or its grace
/// period does.
///
/// Read from the ledger at the database's clock — a refund, a revocation or a renewal shows here
/// as soon as its grant row changes — and, for subscriptions, the state Apple's notifications
/// last reported: a subscription in its billing grace period (status 4) stays an entitlement
/// until the grace period ends, as Apple asks. Served by `grants_entitlement_idx`.
public enum ListEntitlements {
    /// Users own few products; a page this large is never cut in practice, and a bound keeps a
    /// pathological ledger from building an unbounded answer.
    public static let limit = 1000

    static let sql = """
        SELECT DISTINCT ON (g.product_id)
               g.product_id, g.product_type, g.transaction_id, g.original_transaction_id, g.purchase_date,
               CASE WHEN s.model IS NOT NULL THEN s.expires_date ELSE g.expires_date END AS expires_date,
               g.ownership_type, g.environment, g.order_id, g.app_account_token,
               s.status AS subscription_status, s.state AS subscription_state, s.auto_renew_status, s.grace_period_expires_date,
               s.renews_to_product_id, to_json(coalesce(p.entitlements, ARRAY[g.product_id]))::text AS entitlements
        FROM receiptq.grants g
        LEFT JOIN receiptq.subscriptions s                                      -- subscriptions_pkey
               ON g.product_type = 'auto_renewable' AND s.original_transaction_id = g.original_transaction_id
              AND s.environment = g.environment
        LEFT JOIN receiptq.products p ON p.product_id = g.product_id            -- products_pkey
        WHERE g.user_id = $1                                                    -- grants_entitlement_idx
          AND g.revoked_at IS NULL
          AND (g.product_type IN ('non_consumable', 'non_renewing', 'auto_renewable'))
          AND (g.product_type <> 'auto_renewable'
               -- The subscription's model knows the product in effect (an upgrade ends the old one's
               -- access at once) and its expiry (extensions included).
               OR (s.model IS NOT NULL AND s.product_id = g.product_id AND s.revoked_at IS NULL
                   AND ((s.state = 'active' AND s.expires_date > now())
                        OR (s.state = 'grace_period' AND s.grace_period_expires_date > now())
                        OR (s.state = 'billing_retry' AND $3 AND s.expires_date IS NOT NULL)))
               -- Before any model: the grant's period, or a grace period a notification reported.
               OR (s.model IS NULL AND (g.expires_date > now() OR (s.status = 4 AND s.grace_period_expires_date > now()))))
          AND (g.product_type <> 'non_renewing' OR g.expires_date IS NULL OR g.expires_date > now())
        ORDER BY g.product_id, g.expires_date DESC NULLS LAST, g.purchase_date DESC NULLS LAST, g.purchase_key
        LIMIT $2
        """

    /// `billingRetryAccess`: whether a subscription in billing retry (no grace period) keeps its
    /// access while Apple retries; Apple's guidance, and the default, is no.
    public static func run(userID: String, billingRetryAccess: Bool = false, on connection: PostgresConnection) throws -> [Entitlement] {
        try connection.query(sql, [userID, limit, billingRetryAccess]).map(Entitlement.init(row:))
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
    /// Subscriptions, from Apple's notifications: 1 active, 2 expired, 3 billing retry, 4 grace
    /// period, 5 revoked; nil until a notification about it arrived.
    public var subscriptionStatus: Int?
    /// 1 renews at the period's end, 0 turned off.
    public var autoRenewStatus: Int?
    /// In a billing grace period: entitled until then although `expiresDate` has passed.
    public var gracePeriodExpiresDate: Date?
    /// Subscriptions: active, billing_retry, grace_period, expired or revoked (`SubscriptionStatus`).
    public var subscriptionState: String?
    /// Subscriptions: the product it renews to, when a downgrade or crossgrade waits for the renewal.
    public var renewsToProductID: String?
    /// The names this purchase unlocks (`receiptq.products.entitlements`; the product id when
    /// none is configured).
    public var entitlements: [String]

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
        subscriptionStatus = try row.decodeIfPresent("subscription_status")
        autoRenewStatus = try row.decodeIfPresent("auto_renew_status")
        gracePeriodExpiresDate = try row.decodeIfPresent("grace_period_expires_date")
        subscriptionState = try row.decodeIfPresent("subscription_state")
        renewsToProductID = try row.decodeIfPresent("renews_to_product_id")
        entitlements = try JSONDecoder().decode([String].self, from: Data(try row.decode("entitlements", as: String.self).utf8))
    }
}
