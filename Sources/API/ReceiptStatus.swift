import Foundation
import ReceiptQueue

/// The JSON of a job as backends see it (never the receipt itself). Keys are snake_case.
struct ReceiptStatus: Encodable {
    var id: Int64
    /// queued, verifying, timed_out (pending) or granted, already_granted, rejected, failed.
    var state: String
    var statusURL: String
    /// True once `state` will never change again.
    var final: Bool
    var transactionId: String?
    var userId: String?
    var productId: String?
    var orderId: String?
    /// Verification attempts so far.
    var attempts: Int?
    /// Pending only: earliest time of the next attempt.
    var nextAttemptAt: Date?
    /// Why the job ended as it did (rejected, failed), or why the last attempt did not finish it.
    var reason: String?
    var appleStatus: Int?
    var createdAt: Date?
    var finishedAt: Date?

    /// The short answer to POST /v1/receipts: `{id, state, status_url, final}`.
    init(_ job: EnqueuedJob) {
        id = job.id
        state = job.state.rawValue
        statusURL = ReceiptStatus.url(job.id)
        final = job.state.isTerminal
    }

    init(_ record: JobRecord) {
        id = record.id
        state = record.state.rawValue
        statusURL = ReceiptStatus.url(record.id)
        final = record.state.isTerminal
        transactionId = record.transactionID
        userId = record.userID
        productId = record.productID
        orderId = record.orderID
        attempts = record.attempts
        nextAttemptAt = record.state.isTerminal || record.state == .verifying ? nil : record.runAt
        reason = record.state.isTerminal ? record.outcomeReason : record.lastError
        appleStatus = record.appleStatus
        createdAt = record.createdAt
        finishedAt = record.finishedAt
    }

    static func url(_ id: Int64) -> String { "/v1/receipts/\(id)" }
}
