import AppleTestPKI
import FakeAppStore
import Foundation

/// Apple's side of the attacks: fresh purchases in the fake App Store (no purchase notification,
/// so a payer's own submission is what grants it), the bytes StoreKit hands an app — the signed
/// transaction, an app receipt — and the forgeries an attacker can make without Apple's keys:
/// receipts and JWS signed by a CA of his own.
struct FraudStore: Sendable {
    static let consumable = "com.example.fraud.coins"
    static let nonConsumable = "com.example.fraud.pro"

    let fake: FakeServerAPI
    /// A CA that is not Apple's (not the fake's): what an attacker signs with.
    let foreign: TestPKI

    init(fake: FakeServerAPI) throws {
        self.fake = fake
        self.foreign = try TestPKI()
    }

    /// A new purchase by the App Store account `customer`; `appAccountToken` as the app set it.
    func buy(_ customer: String, product: String = Self.consumable, appAccountToken: UUID? = nil) throws -> FakePurchase {
        try fake.buy(FakePurchaseRequest(
            productId: product, type: product == Self.consumable ? "Consumable" : "Non-Consumable", customer: customer,
            appAccountToken: appAccountToken?.uuidString.lowercased(), notify: false))
    }

    /// What StoreKit 2 hands the app: `Transaction.jwsRepresentation`. `at` later: Apple signed it
    /// again (new bytes, same transaction).
    func signed(_ purchase: FakePurchase, at date: Date = Date()) -> String {
        fake.signer.signTransaction(purchase, signedAt: date)
    }

    /// The purchase as the fake holds it now (after a refund, with its revocation).
    func current(_ purchase: FakePurchase) -> FakePurchase {
        fake.purchases.transaction(purchase.transactionId, in: purchase.environment) ?? purchase
    }

    /// The app receipt on the device after `purchases`, signed by the fake as Apple signs receipts.
    func receipt(_ purchases: [FakePurchase]) throws -> String {
        try fake.mintReceipt(Self.contents(purchases))
    }

    /// An app receipt holding `purchases`, signed by the attacker's own CA.
    func foreignReceipt(_ purchases: [FakePurchase]) throws -> String {
        try Self.contents(purchases).pkcs7(signer: foreign.receiptSigner)
    }

    /// A signed transaction for `purchase` made with the attacker's own CA.
    func foreignSigned(_ purchase: FakePurchase) throws -> String {
        try FakeSigner(pki: foreign, bundleId: FraudFleet.bundleID).signTransaction(purchase)
    }

    func familyShare(_ purchase: FakePurchase, with customer: String) throws -> FakePurchase {
        try fake.familyShare(transactionId: purchase.transactionId, with: customer)
    }

    /// Apple refunds: the fake sends REFUND to the API.
    func refund(_ purchase: FakePurchase) throws {
        _ = try fake.refund(transactionId: purchase.transactionId)
    }

    private static func contents(_ purchases: [FakePurchase]) -> FakeReceipt {
        FakeReceipt(bundleID: FraudFleet.bundleID, inApp: purchases.map {
            FakeTransaction(transactionID: $0.transactionId, originalTransactionID: $0.originalTransactionId, productID: $0.productId,
                            quantity: $0.quantity, purchaseDateMs: $0.purchaseDate)
        })
    }
}
