import Foundation
import Postgres

/// Carries out a notification's `NotificationAction`s in the caller's transaction, with the
/// events they produce, and marks the notification applied — or changes nothing when the lease
/// was lost. Each action is idempotent and ignores what is older than the state it would change.
///
/// Revocations and grants of one transaction serialise on a transaction-scoped advisory lock
/// (`receiptq.transaction:<id>`), taken here and by `RecordOutcomes` before it grants: whichever
/// commits second sees the other, so a refund can never slip past a grant being written.
///
/// Its statements are prepared once per connection (`query(prepared:)`): each runs once per
/// notification on one row or key, so its plan does not depend on its parameters, and parsing
/// and planning them every time cost PostgreSQL more than running them.
public enum ApplyNotification {
    public struct Result: Sendable, Equatable {
        /// False: the lease was lost (another worker, or the scheduler, took it); nothing written.
        public var applied: Bool
        /// What it did, as stored in `notifications.outcome`.
        public var outcome: String
        /// Jobs queued for purchases Apple reported (renewals, new subscriptions, one-time charges).
        public var jobs: [Int64]
        public var events: Int
    }

    static let holdSQL = """
        SELECT 1 FROM receiptq.notifications
        WHERE notification_uuid = $1 AND attempts = $2 AND locked_by = $3                       -- primary key
        FOR UPDATE
        """
    static let transactionLockSQL = "SELECT pg_advisory_xact_lock(hashtextextended('receiptq.transaction:' || $1, 0))"

    static let revokeSQL = """
        INSERT INTO receiptq.revocations AS r (transaction_id, original_transaction_id, revoked_at, reason, revocation_reason,
                                               notification_uuid, signed_at)
        VALUES ($1, $2, to_timestamp($3 / 1000.0), $4, $5, $6, to_timestamp($7 / 1000.0))
        ON CONFLICT (transaction_id) DO UPDATE
            SET revoked_at = EXCLUDED.revoked_at, reason = EXCLUDED.reason, revocation_reason = EXCLUDED.revocation_reason,
                original_transaction_id = coalesce(EXCLUDED.original_transaction_id, r.original_transaction_id),
                notification_uuid = EXCLUDED.notification_uuid, source = 'notification', signed_at = EXCLUDED.signed_at,
                reinstated_at = NULL
            WHERE r.signed_at < EXCLUDED.signed_at
        RETURNING transaction_id
        """
    static let reinstateSQL = """
        INSERT INTO receiptq.revocations AS r (transaction_id, original_transaction_id, reason, notification_uuid, signed_at, reinstated_at)
        VALUES ($1, $2, 'refund reversed', $3, to_timestamp($4 / 1000.0), now())
        ON CONFLICT (transaction_id) DO UPDATE
            SET reinstated_at = now(), notification_uuid = EXCLUDED.notification_uuid, source = 'notification',
                signed_at = EXCLUDED.signed_at
            WHERE r.signed_at < EXCLUDED.signed_at
        RETURNING transaction_id
        """
    /// The grants a revocation or reinstatement is about: the transaction's own, its purchase's
    /// (restores share `purchase:<original>`), or its subscription period's — a family member's
    /// keyed by their own transactions the same way (`receiptq.purchase_key`).
    static let grantMatch = """
        (g.transaction_id = $1
         OR g.purchase_key IN ('purchase:' || $2, 'period:' || $3, 'family:purchase:' || $2, 'family:period:' || $2 || ':' || $3))
                                                                                        -- grants_transaction_idx, grants_pkey
        """
    static let grantJSON = """
        jsonb_build_object('purchase_key', g.purchase_key, 'transaction_id', g.transaction_id,
                           'original_transaction_id', g.original_transaction_id, 'product_id', g.product_id, 'quantity', g.quantity,
                           'environment', g.environment, 'ownership_type', g.ownership_type, 'order_id', g.order_id,
                           'revoked_at', g.revoked_at, 'reason', g.revocation_reason, 'notification_uuid', g.revoked_by_notification)::text
        """
    static let revokeGrantsSQL = """
        UPDATE receiptq.grants g
        SET revoked_at = coalesce(to_timestamp($4 / 1000.0), now()), revocation_reason = $5, revoked_by_notification = $6,
            revocation_signed_at = to_timestamp($7 / 1000.0)
        WHERE \(grantMatch)
          AND (g.revocation_signed_at IS NULL OR g.revocation_signed_at < to_timestamp($7 / 1000.0))
        RETURNING g.user_id, g.purchase_key, \(grantJSON) AS data
        """
    static let reinstateGrantsSQL = """
        UPDATE receiptq.grants g
        SET revoked_at = NULL, revocation_reason = NULL, revoked_by_notification = $4, revocation_signed_at = to_timestamp($5 / 1000.0)
        WHERE \(grantMatch)
          AND g.revoked_at IS NOT NULL
          AND (g.revocation_signed_at IS NULL OR g.revocation_signed_at < to_timestamp($5 / 1000.0))
        RETURNING g.user_id, g.purchase_key, \(grantJSON) AS data
        """
    /// Whose purchase it is (DESIGN: Ownership): `PurchaseOwner`.
    static let ownerSQL = PurchaseOwner.sql()
    static let consumptionSQL = """
        INSERT INTO receiptq.consumption_requests (notification_uuid, transaction_id, environment, user_id, reason, deadline)
        VALUES ($1, $2, $3,
                (SELECT g.user_id FROM receiptq.grants g WHERE g.transaction_id = $2 ORDER BY g.granted_at DESC LIMIT 1),
                $4, to_timestamp($5 / 1000.0))
        ON CONFLICT (notification_uuid) DO NOTHING
        RETURNING user_id, jsonb_build_object('transaction_id', transaction_id, 'environment', environment, 'reason', reason,
                                              'deadline', deadline, 'notification_uuid', notification_uuid)::text AS data
        """
    /// The user who submitted the app transaction RESCIND_CONSENT names (POST /v1/users/{id}/app-transactions).
    static let appTransactionUserSQL = """
        SELECT user_id FROM receiptq.app_transactions WHERE app_transaction_id = $1 AND environment = $2
        """
    static let appliedSQL = """
        UPDATE receiptq.notifications
        SET state = 'applied', applied_at = now(), locked_by = NULL, locked_until = NULL, outcome = $2, last_error = NULL
        WHERE notification_uuid = $1
        """

    public static func run(_ lease: NotificationLease, actions: [NotificationAction], worker: String, now: Date = Date(),
                           on connection: PostgresConnection) throws -> Result {
        guard try connection.query(prepared: holdSQL, [lease.uuid, lease.attempt, worker]).count == 1 else {
            return Result(applied: false, outcome: "lease lost", jobs: [], events: 0)
        }
        let signedMs = milliseconds(lease.signedDate)
        var outcomes: [String] = []
        var events: [NewEvent] = []
        var jobs: [Int64] = []
        for action in actions {
            switch action {
            case .revoke(let revocation):
                try connection.query(prepared: transactionLockSQL, [revocation.transactionID])
                let newer = try connection.query(prepared: revokeSQL, [
                    revocation.transactionID, revocation.originalTransactionID, revocation.revokedAt.map(milliseconds), revocation.reason,
                    revocation.revocationReason, lease.uuid, signedMs,
                ]).count == 1
                guard newer else {
                    outcomes.append("revocation of \(revocation.transactionID) older than what is recorded: ignored")
                    continue
                }
                let rows = try connection.query(prepared: revokeGrantsSQL, [
                    revocation.transactionID, revocation.originalTransactionID, revocation.webOrderLineItemID,
                    revocation.revokedAt.map(milliseconds), revocation.reason, lease.uuid, signedMs,
                ])
                for row in rows {
                    events.append(NewEvent(type: .grantRevoked, userID: try row.decode("user_id"), purchaseKey: try row.decode("purchase_key"),
                                           data: try row.decode("data")))
                }
                outcomes.append(rows.isEmpty
                    ? "\(revocation.reason) of \(revocation.transactionID) recorded (not granted: a later submission is not paid)"
                    : "\(revocation.reason): \(rows.count) grant\(rows.count == 1 ? "" : "s") revoked")
            case .reinstate(let transactionID, let originalTransactionID, let webOrderLineItemID):
                try connection.query(prepared: transactionLockSQL, [transactionID])
                guard try connection.query(prepared: reinstateSQL, [transactionID, originalTransactionID, lease.uuid, signedMs]).count == 1 else {
                    outcomes.append("reinstatement of \(transactionID) older than what is recorded: ignored")
                    continue
                }
                let rows = try connection.query(prepared: reinstateGrantsSQL, [transactionID, originalTransactionID, webOrderLineItemID, lease.uuid, signedMs])
                for row in rows {
                    events.append(NewEvent(type: .grantReinstated, userID: try row.decode("user_id"), purchaseKey: try row.decode("purchase_key"),
                                           data: try row.decode("data")))
                }
                outcomes.append("refund reversed: \(rows.count) grant\(rows.count == 1 ? "" : "s") reinstated")
            case .grant(let purchase):
                guard let owner = try connection.query(prepared: ownerSQL, [purchase.originalTransactionID, purchase.appAccountToken]).first else {
                    outcomes.append("purchase \(purchase.transactionID) recorded: no user known yet (the app's submission grants it)")
                    continue
                }
                let job = try EnqueueTransactions.run([NewJob.signedTransaction(
                    purchase.signedTransaction, transactionID: purchase.transactionID, environment: lease.environment,
                    userID: try owner.decode("user_id"),
                    productID: nil, orderID: try owner.decodeIfPresent("order_id"), appAccountToken: purchase.appAccountToken)],
                    on: connection)[0]
                jobs.append(job.id)
                outcomes.append("purchase \(purchase.transactionID) queued for its user (job \(job.id))")
            case .subscription(var fact):
                // The environment as the notification was stored with it: the one its grants carry.
                fact.environment = lease.environment
                let applied = try ApplySubscriptionFact.run(fact, now: now, on: connection)
                events += applied.events
                outcomes.append(applied.changed || !applied.changes.isEmpty
                    ? "subscription: " + (applied.changes.isEmpty ? "recorded" : applied.changes.map(\.name).joined(separator: ", "))
                    : "subscription fact older than what is known, or a repeat: ignored")
            case .consumptionRequest(let transactionID, let reason, let deadline):
                let rows = try connection.query(prepared: consumptionSQL, [lease.uuid, transactionID, lease.environment, reason, milliseconds(deadline)])
                if let row = rows.first, let user = try row.decodeIfPresent("user_id", as: String.self) {
                    events.append(NewEvent(type: .consumptionRequested, userID: user, data: try row.decode("data")))
                }
                outcomes.append("consumption request queued (answer due by deadline)")
            case .consentRescinded(let appTransactionID):
                let data = String(decoding: try JSONSerialization.data(withJSONObject: [
                    "app_transaction_id": appTransactionID, "environment": lease.environment,
                    "notification_uuid": lease.uuid.uuidString.lowercased(),
                ], options: [.sortedKeys]), as: UTF8.self)
                // The backend's user when it submitted the app transaction, else the Apple Account by its id.
                let user = try connection.query(appTransactionUserSQL, [appTransactionID, lease.environment]).first?
                    .decodeIfPresent("user_id", as: String.self)
                events.append(NewEvent(type: .consentRescinded, userID: user ?? "app-transaction:" + appTransactionID, data: data))
                outcomes.append("consent rescinded for app transaction \(appTransactionID.prefix(64))"
                                + (user == nil ? " (no user submitted it)" : "") + ": consent.rescinded event")
            case .record(let note):
                outcomes.append(note)
            }
        }
        let outcome = outcomes.isEmpty ? "recorded" : outcomes.joined(separator: "; ")
        try connection.query(prepared: appliedSQL, [lease.uuid, String(outcome.prefix(1000))])
        try AppendEvents.run(events, on: connection)
        return Result(applied: true, outcome: outcome, jobs: jobs, events: events.count)
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
