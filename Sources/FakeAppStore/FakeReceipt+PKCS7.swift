import AppleSignedData
import AppleTestPKI
import Foundation

/// A `FakeReceipt` as a real app receipt: Apple's payload in a PKCS #7 signed-data container,
/// signed by the fake's test CA (`FakeServerAPI.receiptSigner`), so tests, the lab and the demo
/// drive the product's real parser and verifier. The fake's verifyReceipt reads it back
/// (`FakeReceiptReader`) and answers for it as for the JSON format.
///
/// Only what an app receipt holds survives the trip: bundle id, environment (receipt type), its
/// creation date and, per purchase, ids, product, quantity, dates and cancellation (to the second). The fake's own
/// knobs (`forced_status`, `style`, `padding`, `in_app_ownership_type`, `refunded_after_receipt`)
/// are not in Apple's format: tests of those keep the JSON format.
extension FakeReceipt {
    /// The receipt's contents as Apple writes them, made at `createdAt`.
    public func appReceiptContents(createdAt: Date = Date()) -> AppReceiptContents {
        AppReceiptContents(
            receiptType: environment == .sandbox ? "ProductionSandbox" : "Production",
            bundleId: bundleID, appVersion: "1", opaqueValue: [0x01, 0x02, 0x03, 0x04],
            sha1Hash: Array(repeating: 0x5A, count: 20),
            creationDate: Date(timeIntervalSince1970: createdAt.timeIntervalSince1970.rounded(.down)),
            purchases: inApp.map { transaction in
                AppReceiptPurchase(
                    quantity: transaction.quantity, productId: transaction.productID, transactionId: transaction.transactionID,
                    purchaseDate: Self.date(transaction.purchaseDateMs), originalTransactionId: transaction.originalTransactionID,
                    originalPurchaseDate: Self.date(transaction.purchaseDateMs),
                    subscriptionExpirationDate: transaction.expiresDateMs.map(Self.date),
                    webOrderLineItemId: transaction.webOrderLineItemID.flatMap { Int64($0) },
                    cancellationDate: transaction.cancellationDateMs.map(Self.date))
            },
            originalPurchaseDate: Date(timeIntervalSince1970: 1_600_000_000), originalAppVersion: "1")
    }

    /// The receipt signed by `signer` as an app sends it: base64 of the PKCS #7 DER/BER.
    public func pkcs7(signer: ReceiptSigningIdentity, createdAt: Date = Date()) throws -> String {
        try AppReceiptSigner(identity: signer).signBase64(appReceiptContents(createdAt: createdAt))
    }

    /// What the fake reads back from a decoded app receipt; nil without a bundle id or a known
    /// receipt type (Apple answers those 21002 as well).
    public init?(appReceipt contents: AppReceiptContents) {
        guard let bundleId = contents.bundleId else { return nil }
        let environment: Environment
        switch contents.environment {
        case .production: environment = .production
        case .sandbox: environment = .sandbox
        default: return nil
        }
        let purchases: [FakeTransaction] = contents.purchases.compactMap { purchase in
            guard let id = purchase.transactionId, let product = purchase.productId else { return nil }
            return FakeTransaction(
                transactionID: id, originalTransactionID: purchase.originalTransactionId, productID: product,
                quantity: purchase.quantity ?? 1, purchaseDateMs: Self.milliseconds(purchase.purchaseDate ?? Date(timeIntervalSince1970: 0)),
                expiresDateMs: purchase.subscriptionExpirationDate.map(Self.milliseconds),
                webOrderLineItemID: purchase.webOrderLineItemId.map(String.init),
                cancellationDateMs: purchase.cancellationDate.map(Self.milliseconds))
        }
        self.init(bundleID: bundleId, environment: environment, inApp: purchases, creationDateMs: contents.creationDate.map(Self.milliseconds))
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds / 1000))
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) * 1000
    }
}
