/// A receipt to verify, as a backend submits it.
public struct NewJob: Sendable, Hashable {
    /// Base64 receipt. Whitespace is removed before storing (iOS clients send line-wrapped base64).
    public var receiptData: String
    /// The StoreKit transaction the client asks to verify; it must appear in the receipt.
    public var transactionID: String
    public var userID: String
    public var productID: String?
    /// StoreKit's applicationUsername: the backend's order id, when Apple kept it.
    public var orderID: String?

    public init(receiptData: String, transactionID: String, userID: String, productID: String? = nil, orderID: String? = nil) {
        self.receiptData = NewJob.strippingWhitespace(receiptData)
        self.transactionID = transactionID
        self.userID = userID
        self.productID = productID
        self.orderID = orderID
    }

    static func strippingWhitespace(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) else { return text }
        return String(decoding: text.utf8.filter { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }, as: UTF8.self)
    }
}

/// What enqueueing one `NewJob` did.
public struct EnqueuedJob: Sendable, Hashable {
    public var id: Int64
    /// False when an identical submission (same receipt, same transaction) already existed:
    /// `id` is then the existing job.
    public var created: Bool
    /// The job's state at the time of the answer.
    public var state: JobState
    /// An existing job had the same receipt and transaction but another user, product or
    /// order: the submission was not stored; the API answers 409.
    public var conflicting: Bool
}
