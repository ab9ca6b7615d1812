import Foundation
import ReceiptQueue

/// The body of POST /v1/transactions: a StoreKit 2 signed transaction
/// (`{signed_transaction, user_id, order_id?, product_id?}`) or a transaction id to verify with
/// the App Store Server API (`{transaction_id, user_id, order_id?, product_id?, app_account_token?}`).
/// Decoded leniently (every member optional) so a missing field is named in a 400.
struct TransactionSubmission: Decodable {
    var signedTransaction: String?
    var transactionID: String?
    var userID: String?
    var productID: String?
    var orderID: String?
    var appAccountToken: String?

    enum CodingKeys: String, CodingKey {
        case signedTransaction = "signed_transaction"
        case transactionID = "transaction_id"
        case userID = "user_id"
        case productID = "product_id"
        case orderID = "order_id"
        case appAccountToken = "app_account_token"
    }

    /// The claims every kind shares, checked.
    struct Claims {
        var userID: String
        var productID: String?
        var orderID: String?
        var appAccountToken: UUID?
    }

    func claims() throws -> Claims {
        return Claims(userID: try FieldRules.identifier(userID, "user_id"),
                      productID: try FieldRules.optionalIdentifier(productID, "product_id"),
                      orderID: try FieldRules.optionalIdentifier(orderID, "order_id"), appAccountToken: try FieldRules.optionalUUID(appAccountToken, "app_account_token"))
    }
}
