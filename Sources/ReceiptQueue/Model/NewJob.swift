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

    /// Scans the contiguous UTF-8 when the string has it (always, for strings decoded from a
    /// request): the API calls this on every receipt, and a scan through `String.UTF8View` cost
    /// about 2 % of the CPU of `bench api`.
    static func strippingWhitespace(_ text: String) -> String {
        let hasWhitespace = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isWhitespace) }
            ?? text.utf8.contains(where: isWhitespace)
        guard hasWhitespace else { return text }
        return String(decoding: text.utf8.filter { !isWhitespace($0) }, as: UTF8.self)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}

/// What enqueueing one `NewJob` did.
public struct EnqueuedJob: Sendable, Hashable {
    public var id: Int64
    /// False when a submission of the same receipt and transaction already existed: `id` is
    /// then the existing job (whatever the new submission claimed).
    public var created: Bool
    /// The job's state at the time of the answer.
    public var state: JobState

    public init(id: Int64, created: Bool, state: JobState) {
        self.id = id
        self.created = created
        self.state = state
    }
}
