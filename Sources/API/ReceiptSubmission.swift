import ReceiptQueue

/// The body of POST /v1/receipts, decoded leniently (every member optional) so a missing field
/// is named in a 400 instead of a generic decoding error.
struct ReceiptSubmission: Decodable {
    var receiptData: String?
    var transactionID: String?
    var userID: String?
    var productID: String?
    var orderID: String?
    /// The order's UUID, when the app set it (StoreKit 2's appAccountToken, read from a receipt's
    /// client): matches the order exactly.
    var appAccountToken: String?

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt_data"
        case transactionID = "transaction_id"
        case userID = "user_id"
        case productID = "product_id"
        case orderID = "order_id"
        case appAccountToken = "app_account_token"
    }

    /// The job to enqueue, or a `Problem`: 413 for a receipt over `maxReceiptBytes` (as sent,
    /// whitespace included), 400 for anything missing or malformed.
    func validated(maxReceiptBytes: Int) throws -> NewJob {
        guard let receiptData else { throw Problem.invalid("receipt_data", "receipt_data is required") }
        guard receiptData.utf8.count <= maxReceiptBytes else {
            throw Problem(.tooLarge, "receipt_data is larger than \(maxReceiptBytes) bytes")
        }
        guard FieldRules.isBase64(receiptData) else {
            throw Problem.invalid("receipt_data", "receipt_data must be base64 (whitespace is tolerated)")
        }
        return NewJob(
            receiptData: receiptData,
            transactionID: try FieldRules.identifier(transactionID, "transaction_id"),
            userID: try FieldRules.identifier(userID, "user_id"),
            productID: try FieldRules.optionalIdentifier(productID, "product_id"),
            orderID: try FieldRules.optionalIdentifier(orderID, "order_id"),
            appAccountToken: try FieldRules.optionalUUID(appAccountToken, "app_account_token"))
    }
}
