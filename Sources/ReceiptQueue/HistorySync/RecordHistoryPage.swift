import Foundation
import Postgres

/// Imports one page of a history sync in the caller's transaction, fenced by the lease, and keeps
/// the page's revision: a walk cut short resumes after the last page recorded, never before it.
///
/// Each transaction goes to the one ledger the way a renewal Apple notifies does: a
/// signed-transaction job for its owner (`PurchaseOwner`: a pending order its Apple-signed
/// appAccountToken names, else its original transaction's owner, else any order the token names,
/// else the user an operator named for a backfill — `receiptq sync --user-id`, vouched by the
/// schema owner's login: `guard_history_sync_owner`) — which `RecordPurchases` grants once per purchase or period, by
/// its ownership rules (a job already queued for the same user and transaction is that job: a
/// re-run queues nothing twice). A transaction nobody owns yet is left for the app's submission
/// with proof, never given to who asked for the sync: a customer's history holds every purchase of
/// their Apple account, and two app accounts may share one (DESIGN: Ownership).
///
/// A refund or revocation Apple reports is kept in `receiptq.revocations` (so no later
/// submission of it is granted) and revokes the grants it covers; a transaction Apple shows
/// without one (a reversed refund) reinstates what such a refund revoked — each once, only over
/// what was signed before the page, with its `grant.revoked` / `grant.reinstated` event. Support's
/// manual revocations are never undone by a page. Each subscription period is applied to the
/// model as a `history` fact, with its events.
public enum RecordHistoryPage {
    public struct Result: Sendable, Equatable {
        /// False: the lease was lost; nothing was written.
        public var recorded: Bool
        /// Grants revoked and reinstated by the page.
        public var revoked = 0
        public var reinstated = 0
        /// Jobs created (an existing job for the same user and transaction is not counted).
        public var queued: Int
        /// Transactions nobody owns yet.
        public var unowned: Int
        public var subscriptionChanges: Int
        /// Fields the history corrected in the model (what notifications had missed or got wrong).
        public var corrections: [String]
    }

    static let checkpointSQL = """
        UPDATE receiptq.history_syncs
        SET revision = $5, pages = pages + 1, transactions = transactions + $6, locked_until = now() + $7 * interval '1 millisecond'
        WHERE original_transaction_id = $1 AND environment = $2 AND attempts = $3 AND locked_by = $4     -- history_syncs_pkey
          AND state = '\(HistorySyncState.syncing.rawValue)'
        RETURNING user_id, reason
        """
    /// Whose purchase it is (DESIGN: Ownership): `PurchaseOwner`, with the backfill's vouched user last.
    static let ownerSQL = PurchaseOwner.sql(vouched: true)

    /// A refund in the history, recorded once: a new row, or one a reversal had closed (a refund
    /// again). A refund already open — notified, or seen by an earlier page — returns nothing, so
    /// a repeated walk revokes nothing twice and emits no event twice.
    static let revokeSQL = """
        INSERT INTO receiptq.revocations AS r (transaction_id, original_transaction_id, revoked_at, reason, revocation_reason, signed_at,
                                               source)
        VALUES ($1, $2, to_timestamp($3 / 1000.0), $4, $5, to_timestamp($6 / 1000.0), 'history')
        ON CONFLICT (transaction_id) DO UPDATE                                                  -- revocations_pkey
            SET revoked_at = EXCLUDED.revoked_at, reason = EXCLUDED.reason, revocation_reason = EXCLUDED.revocation_reason,
                original_transaction_id = coalesce(EXCLUDED.original_transaction_id, r.original_transaction_id),
                notification_uuid = NULL, source = 'history', signed_at = EXCLUDED.signed_at, reinstated_at = NULL
            WHERE r.reinstated_at IS NOT NULL AND r.signed_at < EXCLUDED.signed_at
        RETURNING transaction_id
        """
    /// A transaction the history shows without a refund closes an open refund of it signed
    /// before the page (a reversal Apple did not notify, or we missed); without one, nothing.
    static let reinstateSQL = """
        UPDATE receiptq.revocations
        SET reinstated_at = now(), notification_uuid = NULL, source = 'history', signed_at = to_timestamp($2 / 1000.0)
        WHERE transaction_id = $1 AND reinstated_at IS NULL AND signed_at < to_timestamp($2 / 1000.0)   -- revocations_pkey
        RETURNING transaction_id
        """
    /// The grants that refund revoked: Apple's revocations only (signed before the page), never
    /// support's manual ones, which carry no signing time.
    static let reinstateGrantsSQL = """
        UPDATE receiptq.grants g
        SET revoked_at = NULL, revocation_reason = NULL, revoked_by_notification = NULL, revocation_signed_at = to_timestamp($4 / 1000.0)
        WHERE \(ApplyNotification.grantMatch)
          AND g.revoked_at IS NOT NULL AND g.revocation_signed_at < to_timestamp($4 / 1000.0)
        RETURNING g.user_id, g.purchase_key, \(ApplyNotification.grantJSON) AS data
        """

    public static func run(_ lease: HistorySyncLease, worker: String, revision: String?, transactions: [HistoryTransaction],
                           lease duration: Duration, now: Date = Date(), on connection: PostgresConnection) throws -> Result {
        guard let fence = try connection.query(checkpointSQL, [
            lease.originalTransactionID, lease.environment, lease.attempt, worker, revision, transactions.count, duration.milliseconds,
        ]).first else {
            return Result(recorded: false, queued: 0, unowned: 0, subscriptionChanges: 0, corrections: [])
        }
        // Only an operator's backfill vouches for its user; a restore's user is only who asked.
        let vouched: String? = try fence.decode("reason", as: String.self) == QueueHistorySync.Reason.backfill.rawValue
            ? try fence.decodeIfPresent("user_id") : nil
        var jobs: [NewJob] = []
        var unowned = 0
        var owners: [String: String] = [:]
        for transaction in transactions {
            guard let owner = try connection.query(ownerSQL, [
                transaction.originalTransactionID, transaction.appAccountToken?.uuidString, vouched,
            ]).first else {
                unowned += 1
                continue
            }
            let user: String = try owner.decode("user_id")
            // The model names this user as the subscription's only if a grant will follow: a
            // period Apple reports refunded is rejected when its job runs, and a user who never
            // holds the subscription is never told about it (the ownership model's histories).
            if transaction.revocation == nil { owners[transaction.originalTransactionID] = user }
            jobs.append(NewJob.signedTransaction(
                transaction.signedTransaction, transactionID: transaction.transactionID, environment: lease.environment,
                userID: user, orderID: try owner.decodeIfPresent("order_id"),
                appAccountToken: transaction.appAccountToken))
        }
        let queued = try EnqueueTransactions.run(jobs, on: connection).filter(\.created).count
        var events: [NewEvent] = []
        var (revoked, reinstated) = (0, 0)
        for transaction in transactions {
            let signedMs = transaction.signedAt.millisecondsSince1970
            try connection.query(ApplyNotification.transactionLockSQL, [transaction.transactionID])
            if let revocation = transaction.revocation {
                // Kept like a notified refund (later grants consult it); grants revoked only when it is news.
                guard try connection.query(revokeSQL, [
                    transaction.transactionID, transaction.originalTransactionID, revocation.revokedAt?.millisecondsSince1970,
                    revocation.reason, revocation.revocationReason, signedMs,
                ]).count == 1 else { continue }
                let rows = try connection.query(ApplyNotification.revokeGrantsSQL, [
                    transaction.transactionID, transaction.originalTransactionID, transaction.webOrderLineItemID,
                    revocation.revokedAt?.millisecondsSince1970, revocation.reason, nil as String?, signedMs,
                ])
                revoked += rows.count
                for row in rows {
                    events.append(NewEvent(type: .grantRevoked, userID: try row.decode("user_id"), purchaseKey: try row.decode("purchase_key"),
                                           data: try row.decode("data")))
                }
            } else {
                // A reversal: only over a refund Apple reported for this transaction and signed before the page.
                guard try connection.query(reinstateSQL, [transaction.transactionID, signedMs]).count == 1 else { continue }
                let rows = try connection.query(reinstateGrantsSQL, [
                    transaction.transactionID, transaction.originalTransactionID, transaction.webOrderLineItemID, signedMs,
                ])
                reinstated += rows.count
                for row in rows {
                    events.append(NewEvent(type: .grantReinstated, userID: try row.decode("user_id"), purchaseKey: try row.decode("purchase_key"),
                                           data: try row.decode("data")))
                }
            }
        }
        var changes = 0
        var corrections: [String] = []
        for var fact in transactions.compactMap(\.subscription) {
            fact.environment = lease.environment
            // Its periods' jobs are queued, not yet granted: the model learns their owner now.
            let before = try connection.query(RecordSubscriptionCorrections.stateSQL, [fact.originalTransactionID, fact.environment])
                .first?.decodeIfPresent("state", as: String.self)
            let applied = try ApplySubscriptionFact.run(fact, now: now, owner: owners[fact.originalTransactionID], on: connection)
            try RecordSubscriptionCorrections.run(originalTransactionID: fact.originalTransactionID, environment: fact.environment,
                                                  source: "history", fields: applied.corrections, stateBefore: before,
                                                  stateAfter: applied.subscription?.status.rawValue, on: connection)
            events += applied.events
            changes += applied.changes.count
            corrections += applied.corrections
        }
        try AppendEvents.run(events, on: connection)
        return Result(recorded: true, revoked: revoked, reinstated: reinstated, queued: queued, unowned: unowned,
                      subscriptionChanges: changes, corrections: corrections)
    }
}
