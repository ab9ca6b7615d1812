import Foundation
import Postgres

/// Applies one verified fact about a subscription in the caller's transaction: locks the
/// subscription's row, lets `SubscriptionModel` read the fact against the stored snapshot, writes
/// the new snapshot and returns one event per change for the subscription's user.
///
/// The row lock serialises facts about one subscription (a notification and a submission at the
/// same moment); the model's signing-time rules make the result the same in any order, and a fact
/// applied twice changes nothing. Events need a user: a subscription whose user is not known yet
/// (its first grant has not been written) is kept silently, and its user is told where it stands —
/// one introduction — with the first fact after the user becomes known.
public enum ApplySubscriptionFact {
    public struct Result: Sendable, Equatable {
        /// False: the fact was a repeat, or older than what is known.
        public var changed: Bool
        public var changes: [SubscriptionChange]
        public var events: [NewEvent]
        /// Fields a status check or history sync corrected (see `SubscriptionModel.Step`).
        public var corrections: [String]
        public var subscription: Subscription?
    }

    static let levelsSQL = """
        SELECT p.product_id, p.group_level FROM receiptq.products p
        WHERE p.group_level IS NOT NULL
          AND p.subscription_group = (SELECT q.subscription_group FROM receiptq.products q WHERE q.product_id = $1)  -- products_pkey
                                                                                        -- products_group_idx
        """
    static let lockSQL = """
        SELECT s.model::text AS model, s.user_id, s.product_id, s.status, s.auto_renew_status, s.expires_date,
               s.grace_period_expires_date, s.signed_at
        FROM receiptq.subscriptions s
        WHERE s.original_transaction_id = $1 AND s.environment = $2                     -- subscriptions_pkey
        FOR UPDATE
        """
    /// The subscription's user: its original transaction's owner (its periods, restores and
    /// upgrades share it; DESIGN: Ownership).
    static let ownerSQL = """
        SELECT w.user_id FROM receiptq.owners w
        WHERE w.original_transaction_id = $1                                            -- owners_pkey
        """
    static let upsertSQL = """
        INSERT INTO receiptq.subscriptions AS s (
            original_transaction_id, environment, user_id, model, state, status, group_id, product_id, transaction_id,
            expires_date, auto_renew_status, renews_to_product_id, grace_period_expires_date, expiration_reason,
            offer_type, offer_id, price_increase, revoked_at, last_source, last_notification_type, last_subtype, signed_at)
        VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, to_timestamp($10 / 1000.0), $11, $12, to_timestamp($13 / 1000.0), $14,
                $15, $16, $17, to_timestamp($18 / 1000.0), $19, $20, $21, to_timestamp($22 / 1000.0))
        ON CONFLICT (original_transaction_id, environment) DO UPDATE
            SET user_id = coalesce(EXCLUDED.user_id, s.user_id), model = EXCLUDED.model, state = EXCLUDED.state,
                status = EXCLUDED.status, group_id = EXCLUDED.group_id, product_id = EXCLUDED.product_id,
                transaction_id = EXCLUDED.transaction_id, expires_date = EXCLUDED.expires_date,
                auto_renew_status = EXCLUDED.auto_renew_status, renews_to_product_id = EXCLUDED.renews_to_product_id,
                grace_period_expires_date = EXCLUDED.grace_period_expires_date, expiration_reason = EXCLUDED.expiration_reason,
                offer_type = EXCLUDED.offer_type, offer_id = EXCLUDED.offer_id, price_increase = EXCLUDED.price_increase,
                revoked_at = EXCLUDED.revoked_at, last_source = EXCLUDED.last_source,
                last_notification_type = coalesce(EXCLUDED.last_notification_type, s.last_notification_type),
                last_subtype = CASE WHEN EXCLUDED.last_notification_type IS NULL THEN s.last_subtype ELSE EXCLUDED.last_subtype END,
                signed_at = greatest(s.signed_at, EXCLUDED.signed_at), updated_at = now()
        """

    /// - Parameter owner: the user to tell when neither the row nor the ledger knows one yet — the
    ///   owner a history sync just queued the subscription's periods for (their grants follow).
    public static func run(_ fact: SubscriptionFact, now: Date, owner: String? = nil, on connection: PostgresConnection) throws -> Result {
        var levels: [String: Int] = [:]
        if let product = fact.transaction?.productID ?? fact.renewal?.renewsToProductID {
            for row in try connection.query(levelsSQL, [product]) {
                levels[try row.decode("product_id")] = try row.decode("group_level", as: Int.self)
            }
        }
        let model = SubscriptionModel(levels: levels)
        let stored = try connection.query(lockSQL, [fact.originalTransactionID, fact.environment]).first
        let current = try stored.flatMap { try snapshot(of: $0, originalTransactionID: fact.originalTransactionID, environment: fact.environment) }
        let knownUser: String? = try stored?.decodeIfPresent("user_id")
        guard let step = model.apply(fact, to: current, now: now) else {
            return Result(changed: false, changes: [], events: [], corrections: [], subscription: current)
        }
        // The row keeps its owner (receiptq.move_owner moves it too); a row without one asks the owners.
        let user: String?
        if let knownUser {
            user = knownUser
        } else {
            user = try connection.query(ownerSQL, [fact.originalTransactionID]).first?.decode("user_id") ?? owner
        }
        // A user learning of the subscription only now hears where it stands, not a diff they never saw.
        let newlyKnown = knownUser == nil && user != nil && current != nil
        guard step.changed || newlyKnown else {
            return Result(changed: false, changes: [], events: [], corrections: [], subscription: current)
        }
        let changes = newlyKnown ? model.introduction(of: step.subscription) : step.changes
        try write(step.subscription, user: user, fact: fact, on: connection)
        let events = try user.map { user in
            try changes.map { try event($0, subscription: step.subscription, user: user) }
        } ?? []
        return Result(changed: step.changed, changes: changes, events: events, corrections: step.corrections,
                      subscription: step.subscription)
    }

    static func write(_ s: Subscription, user: String?, fact: SubscriptionFact, on connection: PostgresConnection) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = Date.wholeMillisecondsEncoding
        encoder.outputFormatting = [.sortedKeys]
        let model = String(decoding: try encoder.encode(s), as: UTF8.self)
        let signedAt = max(s.transactionSignedAt, s.renewalSignedAt ?? .distantPast, s.statusSignedAt ?? .distantPast)
        try connection.query(upsertSQL, [
            s.originalTransactionID, s.environment, user, model, s.status.rawValue, s.status.apple, s.groupID, s.productID,
            s.transactionID, s.expiresAt.map(milliseconds), s.autoRenew.map { $0 ? 1 : 0 }, s.renewsToProductID,
            s.gracePeriodExpiresAt.map(milliseconds), s.expirationReason?.rawValue, s.offer?.kind.rawValue, s.offer?.id,
            s.priceIncrease?.rawValue, s.revokedAt.map(milliseconds), fact.source.name, fact.notificationType,
            fact.notificationSubtype, milliseconds(signedAt),
        ])
    }

    /// The event for one change: `subscription.<change>`, its data the change's details and the
    /// subscription as it stands after the fact (`SubscriptionView`).
    static func event(_ change: SubscriptionChange, subscription: Subscription, user: String) throws -> NewEvent {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = SubscriptionEventBody(change: change.details, subscription: SubscriptionView(subscription))
        return NewEvent(type: change.eventType, userID: user, purchaseKey: nil,
                        data: String(decoding: try encoder.encode(body), as: UTF8.self))
    }

    /// The stored snapshot; for a row written before the model existed (0020), the snapshot its
    /// columns describe, signed when the row was.
    static func snapshot(of row: PostgresRow, originalTransactionID: String, environment: String) throws -> Subscription? {
        if let json: String = try row.decodeIfPresent("model") {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = Date.wholeMillisecondsDecoding
            return try decoder.decode(Subscription.self, from: Data(json.utf8))
        }
        guard let product: String = try row.decodeIfPresent("product_id"),
              let signedAt: Date = try row.decodeIfPresent("signed_at") else { return nil }
        let status = try row.decodeIfPresent("status", as: Int.self).flatMap(SubscriptionStatus.init(apple:))
        return Subscription(
            originalTransactionID: originalTransactionID, environment: environment, productID: product,
            transactionID: originalTransactionID, expiresAt: try row.decodeIfPresent("expires_date"), transactionSignedAt: signedAt,
            autoRenew: try row.decodeIfPresent("auto_renew_status", as: Int.self).map { $0 != 0 }, renewsToProductID: product,
            gracePeriodExpiresAt: try row.decodeIfPresent("grace_period_expires_date"), renewalSignedAt: signedAt,
            status: status ?? .active, statusSignedAt: status == nil ? nil : signedAt)
    }

    static func milliseconds(_ date: Date) -> Int64 { date.millisecondsSince1970 }
}

extension SubscriptionFact.Source {
    /// As stored in `subscriptions.last_source`.
    var name: String {
        switch self {
        case .notification(let type, let subtype): "notification:" + type + (subtype.map { ":" + $0 } ?? "")
        case .statusCheck: "status_check"
        case .history: "history"
        case .receipt: "receipt"
        case .transaction: "transaction"
        }
    }
}

extension SubscriptionStatus {
    /// Apple's number for it (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
    public var apple: Int {
        switch self {
        case .active: 1
        case .expired: 2
        case .billingRetry: 3
        case .gracePeriod: 4
        case .revoked: 5
        }
    }
}
