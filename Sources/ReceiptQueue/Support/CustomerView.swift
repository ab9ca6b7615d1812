import Foundation
import Postgres

/// One customer's story as support reads it, as a JSON object: grants, entitlements,
/// subscriptions, orders, jobs, notifications, webhook deliveries and the audit rows about them —
/// of one app account (`user:`), or of one purchase (an original transaction id, whoever holds
/// it). Newest first, at most `limit` rows per section; never a receipt, signed payload or secret.
public enum CustomerView {
    public static let limit = 200

    static let grantColumns = """
        purchase_key, transaction_id, original_transaction_id, job_id, user_id, product_id, product_type, quantity, purchase_date,
        expires_date, environment, ownership_type, order_id, unmatched, granted_at, revoked_at, revocation_reason, manual_by
        """
    static let jobColumns = """
        id, kind, state, transaction_id, user_id, product_id, order_id, attempts, apple_status, apple_environment, last_error,
        outcome_reason, created_at, finished_at, run_at, locked_by
        """
    static let notificationColumns = """
        notification_uuid, notification_type, subtype, environment, signed_date, original_transaction_id, transaction_id, source, state,
        attempts, last_error, outcome, received_at, applied_at
        """
    static let subscriptionColumns = """
        original_transaction_id, environment, user_id, product_id, state, status, auto_renew_status, expires_date, grace_period_expires_date,
        renews_to_product_id, expiration_reason, revoked_at, last_source, updated_at
        """
    static let deliveryColumns = "endpoint_id, event_sequence, user_id, state, attempts, last_status, last_error, created_at, delivered_at"

    static func section(_ name: String, _ select: String) -> String {
        "'\(name)', coalesce((SELECT jsonb_agg(to_jsonb(x)) FROM (\(select)\n) x), '[]'::jsonb)"
    }

    public static let userSQL = """
        SELECT jsonb_build_object('user_id', $1::text,
          \(section("grants", "SELECT \(grantColumns) FROM receiptq.grants WHERE user_id = $1 ORDER BY granted_at DESC LIMIT $3")),
          \(section("subscriptions", "SELECT \(subscriptionColumns) FROM receiptq.subscriptions WHERE user_id = $1 ORDER BY updated_at DESC LIMIT $2")),
          \(section("orders", "SELECT order_id, product_id, state, app_account_token, created_at, fulfilled_at FROM receiptq.orders WHERE user_id = $1 ORDER BY created_at DESC LIMIT $2")),
          \(section("jobs", "SELECT \(jobColumns) FROM receiptq.jobs WHERE user_id = $1 ORDER BY created_at DESC LIMIT $4")),
          \(section("notifications", """
              SELECT \(notificationColumns) FROM receiptq.notifications
              WHERE original_transaction_id IN (SELECT original_transaction_id FROM receiptq.grants WHERE user_id = $1)
              ORDER BY received_at DESC LIMIT $2
              """)),
          \(section("deliveries", "SELECT \(deliveryColumns) FROM receiptq.deliveries WHERE user_id = $1 ORDER BY created_at DESC LIMIT $2")),
          \(section("audit", "SELECT id, at, actor, action, subject, why FROM receiptq.support_audit WHERE subject = 'user:' || $1 ORDER BY id DESC LIMIT $2"))
        )::text AS view
        """

    static let purchaseSQL = """
        SELECT jsonb_build_object('original_transaction_id', $1::text,
          \(section("grants", "SELECT \(grantColumns) FROM receiptq.grants WHERE original_transaction_id = $1 ORDER BY granted_at DESC LIMIT $2")),
          \(section("subscriptions", "SELECT \(subscriptionColumns) FROM receiptq.subscriptions WHERE original_transaction_id = $1 LIMIT $2")),
          \(section("jobs", """
              SELECT \(jobColumns) FROM receiptq.jobs
              WHERE id IN (SELECT job_id FROM receiptq.grants WHERE original_transaction_id = $1)         -- grants_original_idx
                 OR id IN (SELECT j.id FROM receiptq.jobs j                                   -- jobs_unsettled_transaction_idx
                           JOIN (SELECT $1::text AS transaction_id
                                 UNION SELECT transaction_id FROM receiptq.grants WHERE original_transaction_id = $1) t
                             ON j.transaction_id = t.transaction_id
                           WHERE j.state NOT IN ('verifying', 'granted'))
              ORDER BY created_at DESC LIMIT $2
              """)),
          \(section("notifications", "SELECT \(notificationColumns) FROM receiptq.notifications WHERE original_transaction_id = $1 ORDER BY received_at DESC LIMIT $2")),
          \(section("deliveries", """
              SELECT d.endpoint_id, d.event_sequence, d.user_id, d.state, d.attempts, d.last_status, d.last_error, d.created_at, d.delivered_at
              FROM receiptq.deliveries d JOIN receiptq.events e ON e.sequence = d.event_sequence
              WHERE e.purchase_key IN (SELECT purchase_key FROM receiptq.grants WHERE original_transaction_id = $1)
              ORDER BY d.created_at DESC LIMIT $2
              """)),
          \(section("audit", "SELECT id, at, actor, action, subject, why FROM receiptq.support_audit WHERE subject = 'original_transaction:' || $1 ORDER BY id DESC LIMIT $2"))
        )::text AS view
        """

    /// The sections of an account's story a caller may leave out: the console pages an account's
    /// grants and jobs itself (`ConsoleLists`), so it does not read them twice. A section left out
    /// is an empty list.
    public enum PagedSection: Sendable, Hashable { case grants, jobs }

    /// One app account's story, with its entitlements now (`ListEntitlements`), less `without`.
    public static func user(_ userID: String, limit: Int = limit, without: Set<PagedSection> = [],
                            on connection: PostgresConnection) throws -> String {
        let view: String = try connection.query(userSQL, [userID, limit, without.contains(.grants) ? 0 : limit,
                                                          without.contains(.jobs) ? 0 : limit])[0].decode("view")
        let entitlements = try ListEntitlements.run(userID: userID, on: connection)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let encoded = String(decoding: try encoder.encode(entitlements), as: UTF8.self)
        return String(view.dropLast()) + ", \"entitlements\": " + encoded + "}"
    }

    /// One purchase's story (every grant of the original transaction, whoever holds it).
    public static func purchase(_ originalTransactionID: String, limit: Int = limit, on connection: PostgresConnection) throws -> String {
        try connection.query(purchaseSQL, [originalTransactionID, limit])[0].decode("view")
    }
}
