import Foundation
import Postgres

/// A job's observable state (no receipt data), with the purchase Apple verified when the job
/// found one in the ledger.
public struct JobRecord: Sendable, Equatable {
    public var id: Int64
    /// What was submitted: a receipt, a signed transaction or a transaction id.
    public var kind: JobKind
    public var state: JobState
    /// What the job means for its submitter now, read from the ledger (`receiptq.verdict`).
    public var verdict: Verdict
    public var attempts: Int
    public var transactionID: String
    public var userID: String
    /// What the client claimed.
    public var productID: String?
    public var orderID: String?
    public var runAt: Date
    public var lockedBy: String?
    public var appleStatus: Int?
    public var appleEnvironment: String?
    public var lastError: String?
    public var outcomeReason: String?
    public var createdAt: Date
    public var finishedAt: Date?
    /// `resubmit` only: the later submission that took over.
    public var supersededBy: Int64?
    /// granted / already_granted: the ledger's row for the purchase — only when it is this job's
    /// user's (another account's purchase is never shown to a replayer).
    public var purchase: VerifiedPurchase?

    /// The purchase as Apple verified it and the ledger recorded it.
    public struct VerifiedPurchase: Sendable, Equatable {
        public var purchaseKey: String
        public var transactionID: String
        public var originalTransactionID: String
        public var productID: String
        public var quantity: Int
        public var environment: String
        public var ownershipType: String
        /// The order it fulfilled; nil: unmatched.
        public var orderID: String?
        public var expiresDate: Date?
        public var revokedAt: Date?
        /// Always true: the purchase is shown only to its owner (kept for clients that read it).
        public var grantedToThisUser: Bool
    }

    public static let sql = """
        SELECT j.id, j.kind, j.state, j.attempts, j.transaction_id, j.user_id, j.product_id, j.order_id, j.run_at, j.locked_by,
               j.apple_status, j.apple_environment, j.last_error, j.outcome_reason, j.created_at, j.finished_at,
               j.superseded_by, g.purchase_key, g.transaction_id AS g_transaction_id, g.original_transaction_id,
               g.product_id AS g_product_id, g.quantity, g.environment, g.ownership_type, g.order_id AS g_order_id,
               g.expires_date, g.revoked_at, g.user_id = j.user_id AS same_user,
               \(Verdict.sql(state: "j.state", id: "j.id", userID: "j.user_id", grant: "g")) AS verdict
        FROM receiptq.jobs j
        LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key   -- grants_pkey
        WHERE j.id = $1                                                   -- primary key
        """

    public static func fetch(id: Int64, on connection: PostgresConnection) throws -> JobRecord? {
        guard let row = try connection.query(sql, [id]).first else { return nil }
        var purchase: VerifiedPurchase?
        if let key = try row.decodeIfPresent("purchase_key", as: String.self), try row.decodeIfPresent("same_user", as: Bool.self) == true {
            purchase = VerifiedPurchase(
                purchaseKey: key, transactionID: try row.decode("g_transaction_id"),
                originalTransactionID: try row.decode("original_transaction_id"), productID: try row.decode("g_product_id"),
                quantity: try row.decode("quantity"), environment: try row.decode("environment"),
                ownershipType: try row.decode("ownership_type"), orderID: try row.decodeIfPresent("g_order_id"),
                expiresDate: try row.decodeIfPresent("expires_date"), revokedAt: try row.decodeIfPresent("revoked_at"),
                grantedToThisUser: try row.decode("same_user"))
        }
        return JobRecord(
            id: try row.decode("id"), kind: try row.decode("kind"), state: try EnqueueBatch.decodeState(row),
            verdict: try Verdict.decode(row), attempts: try row.decode("attempts"),
            transactionID: try row.decode("transaction_id"), userID: try row.decode("user_id"),
            productID: try row.decodeIfPresent("product_id"), orderID: try row.decodeIfPresent("order_id"),
            runAt: try row.decode("run_at"), lockedBy: try row.decodeIfPresent("locked_by"),
            appleStatus: try row.decodeIfPresent("apple_status"), appleEnvironment: try row.decodeIfPresent("apple_environment"),
            lastError: try row.decodeIfPresent("last_error"), outcomeReason: try row.decodeIfPresent("outcome_reason"),
            createdAt: try row.decode("created_at"), finishedAt: try row.decodeIfPresent("finished_at"),
            supersededBy: try row.decodeIfPresent("superseded_by"), purchase: purchase)
    }
}
