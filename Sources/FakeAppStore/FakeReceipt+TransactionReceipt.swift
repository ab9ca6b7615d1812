import AppleSignedData
import AppleTestPKI
import Foundation

/// A `FakeReceipt` as an iOS 6 transaction receipt (`TransactionReceipt`): its first purchase as
/// Apple's `purchase-info`, signed by the fake's receipt signer. The fake's verifyReceipt reads it
/// back (`FakeReceiptReader`) and answers in the iOS 6 shape, as Apple does.
extension FakeReceipt {
    /// The first purchase as an iOS 6 transaction receipt, base64 as an app sends it.
    public func transactionReceipt(signer: ReceiptSigningIdentity) throws -> String {
        guard let purchase = inApp.first else { throw FakeAdminError.badRequest("an iOS 6 transaction receipt holds one purchase") }
        let info: [String: String] = [
            "bid": bundleID, "bvrs": "1", "transaction-id": purchase.transactionID,
            "original-transaction-id": purchase.originalTransactionID, "product-id": purchase.productID,
            "quantity": String(purchase.quantity), "purchase-date-ms": String(purchase.purchaseDateMs),
            "original-purchase-date-ms": String(purchase.purchaseDateMs), "item-id": "521129812",
            "unique-identifier": "0000b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0",
        ]
        return try TransactionReceiptSigner(identity: signer).signBase64(
            purchaseInfo: info, environment: environment == .sandbox ? "Sandbox" : nil)
    }

    /// What the fake reads back from a transaction receipt: its one purchase, answered in the
    /// iOS 6 shape; nil without the fields Apple always writes.
    init?(transactionReceipt receipt: TransactionReceipt) {
        guard let bundleId = receipt.bundleId, let id = receipt.transactionId, let product = receipt.productId else { return nil }
        self.init(bundleID: bundleId, environment: receipt.environment == "Sandbox" ? .sandbox : .production,
                  inApp: [FakeTransaction(transactionID: id, originalTransactionID: receipt.originalTransactionId, productID: product,
                                          quantity: receipt.quantity ?? 1, purchaseDateMs: receipt.purchaseDateMs ?? 0)],
                  style: "ios6")
    }
}
