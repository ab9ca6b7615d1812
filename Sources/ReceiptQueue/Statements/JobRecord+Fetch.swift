import Foundation
import Postgres

/// A job's observable state (no receipt data).
public struct JobRecord: Sendable, Equatable {
    public var id: Int64
    public var state: JobState
    public var attempts: Int
    public var transactionID: String
    public var userID: String
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

    static let sql = """
        SELECT id, state, attempts, transaction_id, user_id, product_id, order_id, run_at, locked_by,
               apple_status, apple_environment, last_error, outcome_reason, created_at, finished_at
        FROM receiptq.jobs WHERE id = $1   -- primary key
        """

    public static func fetch(id: Int64, on connection: PostgresConnection) throws -> JobRecord? {
        guard let row = try connection.query(sql, [id]).first else { return nil }
        return JobRecord(
            id: try row.decode("id"), state: try EnqueueBatch.decodeState(row), attempts: try row.decode("attempts"),
            transactionID: try row.decode("transaction_id"), userID: try row.decode("user_id"),
            productID: try row.decodeIfPresent("product_id"), orderID: try row.decodeIfPresent("order_id"),
            runAt: try row.decode("run_at"), lockedBy: try row.decodeIfPresent("locked_by"),
            appleStatus: try row.decodeIfPresent("apple_status"), appleEnvironment: try row.decodeIfPresent("apple_environment"),
            lastError: try row.decodeIfPresent("last_error"), outcomeReason: try row.decodeIfPresent("outcome_reason"),
            createdAt: try row.decode("created_at"), finishedAt: try row.decodeIfPresent("finished_at"))
    }
}
