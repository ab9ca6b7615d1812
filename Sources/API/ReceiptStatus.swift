import Foundation
import ReceiptQueue

/// The JSON of a job as backends see it (never the receipt itself). Keys are snake_case.
///
/// `verdict` is the one field the app acts on (see `Verdict`), read from the ledger: `delivered`
/// — deliver, then finish the StoreKit transaction; `already_delivered` — finish it, deliver
/// nothing new; `owned_by_another_user`, `revoked`, `not_paid` — deliver nothing; `resubmit` —
/// keep it unfinished and submit again with proof; `pending` — keep it unfinished and wait.
struct ReceiptStatus: Encodable {
    var id: Int64
    /// queued, verifying, timed_out, failed (verdict pending) or granted, already_granted,
    /// owned_elsewhere, rejected, resubmit.
    var state: String
    var verdict: String
    var statusURL: String
    /// True once `state` will never change again.
    var final: Bool
    /// receipt, signed_transaction or transaction_id.
    var kind: String?
    var transactionId: String?
    var userId: String?
    /// What the client claimed.
    var productId: String?
    var orderId: String?
    /// Verification attempts so far.
    var attempts: Int?
    /// Pending only: earliest time of the next attempt.
    var nextAttemptAt: Date?
    /// Why the job ended as it did (rejected, failed, resubmit, already_granted), or why the last
    /// attempt did not finish it.
    var reason: String?
    var appleStatus: Int?
    /// Which of Apple's environments answered (TestFlight and App Review buy, free, in the sandbox).
    var environment: String?
    /// delivered / already_delivered / revoked: the purchase as Apple verified it (never shown
    /// for another account's purchase).
    var purchase: Purchase?
    /// resubmit: the later submission that took over.
    var supersededBy: String?
    var createdAt: Date?
    var finishedAt: Date?

    struct Purchase: Encodable {
        var transactionId: String
        var originalTransactionId: String
        /// Apple's product (granted as Apple verified it, whatever the client claimed).
        var productId: String
        var quantity: Int
        var environment: String
        /// PURCHASED, or FAMILY_SHARED (a family member's access).
        var ownershipType: String
        /// The order it fulfilled; null: no registered order matched (granted anyway).
        var orderId: String?
        var expiresAt: Date?
        var revokedAt: Date?
        /// Always true (another account's purchase is not shown); kept for clients that read it.
        var grantedToThisUser: Bool
    }

    /// The short answer to POST /v1/receipts: `{id, state, verdict, status_url, final}`.
    init(_ job: EnqueuedJob) {
        id = job.id
        state = job.state.rawValue
        verdict = job.verdict.rawValue
        statusURL = ReceiptStatus.url(job.id)
        final = job.state.isTerminal
    }

    init(_ record: JobRecord) {
        id = record.id
        state = record.state.rawValue
        verdict = record.verdict.rawValue
        statusURL = ReceiptStatus.url(record.id)
        final = record.state.isTerminal
        kind = record.kind.rawValue
        transactionId = record.transactionID
        userId = record.userID
        productId = record.productID
        orderId = record.orderID
        attempts = record.attempts
        nextAttemptAt = record.state.isTerminal || record.state == .verifying ? nil : record.runAt
        reason = record.state.isTerminal ? record.outcomeReason : record.lastError
        appleStatus = record.appleStatus
        environment = record.appleEnvironment
        purchase = record.purchase.map { purchase in
            Purchase(transactionId: purchase.transactionID, originalTransactionId: purchase.originalTransactionID,
                     productId: purchase.productID, quantity: purchase.quantity, environment: purchase.environment,
                     ownershipType: purchase.ownershipType, orderId: purchase.orderID, expiresAt: purchase.expiresDate,
                     revokedAt: purchase.revokedAt, grantedToThisUser: purchase.grantedToThisUser)
        }
        supersededBy = record.supersededBy.map(ReceiptStatus.url)
        createdAt = record.createdAt
        finishedAt = record.finishedAt
    }

    static func url(_ id: Int64) -> String { "/v1/receipts/\(id)" }
}
