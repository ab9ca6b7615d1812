import Foundation

/// A claimed job: the worker `lockedBy` holds it until `lockedUntil`. The pair (`id`,
/// `attempt`) is the fencing token every completion must present.
public struct JobLease: Sendable, Hashable {
    public var id: Int64
    /// The claim number (1 for the first claim); completions for an older attempt are refused.
    public var attempt: Int
    public var receiptData: String
    public var transactionID: String
    public var userID: String
    public var productID: String?
    public var orderID: String?
    public var createdAt: Date
    /// When the retry budget's deadline started counting: enqueue, or the last re-drive by ops.
    public var budgetStart: Date
    public var lockedUntil: Date
    /// Earlier answers that may mean a bad receipt (21002…); see `FinishedAttempt.boundedAnswer`.
    public var boundedAnswers: Int

    public init(id: Int64, attempt: Int, receiptData: String, transactionID: String, userID: String, productID: String?,
                orderID: String?, createdAt: Date, budgetStart: Date? = nil, lockedUntil: Date, boundedAnswers: Int = 0) {
        self.id = id
        self.attempt = attempt
        self.receiptData = receiptData
        self.transactionID = transactionID
        self.userID = userID
        self.productID = productID
        self.orderID = orderID
        self.createdAt = createdAt
        self.budgetStart = budgetStart ?? createdAt
        self.lockedUntil = lockedUntil
        self.boundedAnswers = boundedAnswers
    }
}
