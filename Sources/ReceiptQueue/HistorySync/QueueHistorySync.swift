import Foundation
import Postgres

/// Asks for a history sync of one original transaction: a new one starts from the beginning; a
/// finished one (`synced` or `failed`) is queued again and resumes from its revision; one queued
/// or running stays as it is (and runs now if it was waiting for a retry).
///
/// The user named is who asked. Only an operator's backfill (`receiptq sync --user-id`, the
/// schema owner's login) makes that user the owner of purchases nobody else owns; a restore
/// through the API is asked for by a purchase's owner (`ownedEnvironment`) and places every
/// purchase by the ledger and Apple-signed orders alone (`RecordHistoryPage`).
public enum QueueHistorySync {
    public enum Reason: String, Sendable, CaseIterable {
        case request
        case firstSighting = "first_sighting"
        case backfill
    }

    /// The sync as it stands after the request.
    public struct Status: Sendable, Hashable, Codable {
        public var originalTransactionID: String
        public var environment: String
        public var userID: String?
        public var state: String
        public var revision: String?
        public var pages: Int
        public var transactions: Int
        public var syncedAt: Date?
        public var lastError: String?

        enum CodingKeys: String, CodingKey {
            case originalTransactionID = "original_transaction_id", environment, userID = "user_id", state, revision, pages, transactions
            case syncedAt = "synced_at", lastError = "last_error"
        }
    }

    static let sql = """
        INSERT INTO receiptq.history_syncs AS h (original_transaction_id, environment, user_id, reason)
        VALUES ($1, $2, $3, $4)
        ON CONFLICT (original_transaction_id, environment) DO UPDATE                                -- history_syncs_pkey
        SET state = CASE WHEN h.state IN (\(HistorySyncState.sqlList([.synced, .failed]))) THEN '\(HistorySyncState.queued.rawValue)' ELSE h.state END,
            run_at = CASE WHEN h.state = '\(HistorySyncState.syncing.rawValue)' THEN h.run_at ELSE least(h.run_at, now()) END,
            user_id = coalesce(EXCLUDED.user_id, h.user_id), reason = EXCLUDED.reason, requested_at = now()
        RETURNING h.original_transaction_id, h.environment, h.user_id, h.state, h.revision, h.pages, h.transactions, h.synced_at,
                  h.last_error
        """

    /// Every auto-renewable original transaction in the ledger without a sync (`receiptq sync
    /// --all`): resumable, since a sync already queued or done is left alone.
    static let backfillSQL = """
        INSERT INTO receiptq.history_syncs (original_transaction_id, environment, reason)
        SELECT DISTINCT g.original_transaction_id, g.environment, '\(Reason.backfill.rawValue)'
        FROM receiptq.grants g
        WHERE g.product_type = 'auto_renewable' AND ($1::text IS NULL OR g.environment = $1)
        ON CONFLICT (original_transaction_id, environment) DO NOTHING
        """

    /// The user's purchases of the original transaction, newest first: a restore acts only for
    /// their owner (DESIGN: Ownership — a bare original transaction id proves nothing).
    static let ownedEnvironmentSQL = """
        SELECT g.environment FROM receiptq.grants g
        WHERE g.original_transaction_id = $1 AND g.user_id = $2                                 -- grants_original_idx
          AND ($3::text IS NULL OR g.environment = $3)
        ORDER BY g.granted_at DESC LIMIT 1
        """

    /// The environment of the user's newest purchase of the original transaction (in `environment`
    /// when one is named), or nil when the ledger holds none of it for this user: a revoked grant
    /// still counts (its owner may restore to see a refund reversed).
    public static func ownedEnvironment(of originalTransactionID: String, by userID: String, in environment: String?,
                                        on connection: PostgresConnection) throws -> String? {
        try connection.query(ownedEnvironmentSQL, [originalTransactionID, userID, environment]).first?.decode("environment")
    }

    public static func run(originalTransactionID: String, environment: String, userID: String?, reason: Reason,
                           on connection: PostgresConnection) throws -> Status {
        let row = try connection.query(sql, [originalTransactionID, environment, userID, reason.rawValue])[0]
        return Status(originalTransactionID: try row.decode("original_transaction_id"), environment: try row.decode("environment"),
                      userID: try row.decodeIfPresent("user_id"), state: try row.decode("state"),
                      revision: try row.decodeIfPresent("revision"), pages: try row.decode("pages"),
                      transactions: try row.decode("transactions"), syncedAt: try row.decodeIfPresent("synced_at"),
                      lastError: try row.decodeIfPresent("last_error"))
    }

    /// Queues every auto-renewable original transaction of the ledger not synced yet; returns how many.
    public static func backfill(environment: String?, on connection: PostgresConnection) throws -> Int {
        try connection.query(backfillSQL, [environment]).affectedRows
    }
}
