import AppleTestPKI
import FakeAppStore
import Foundation
import HTTPClient

/// Apple's side of the attacks: fresh purchases in the fake App Store (no purchase notification,
/// so a payer's own submission is what grants it), the bytes StoreKit hands an app — the signed
/// transaction, an app receipt — and the forgeries an attacker can make without Apple's keys:
/// receipts and JWS signed by a CA of his own. Apple's half goes through the fake's admin API
/// (the fake is a child process); the attacker's half is signed here.
struct FraudStore: Sendable {
    static let consumable = "com.example.fraud.coins"
    static let nonConsumable = "com.example.fraud.pro"
    static let subscription = "com.example.fraud.monthly"

    let adminURL: String
    let http: HTTPClient
    /// A CA that is not Apple's (not the fake's): what an attacker signs with.
    let foreign: TestPKI

    init(fake: FraudFake, http: HTTPClient) throws {
        self.adminURL = fake.adminURL
        self.http = http
        self.foreign = try TestPKI()
    }

    /// A new purchase by the App Store account `customer`; `appAccountToken` as the app set it.
    func buy(_ customer: String, product: String = Self.consumable, appAccountToken: UUID? = nil) async throws -> FakePurchase {
        try await admin("purchases", FakePurchaseRequest(
            productId: product, type: product == Self.consumable ? "Consumable" : "Non-Consumable", customer: customer,
            appAccountToken: appAccountToken?.uuidString.lowercased(), notify: false), expect: 201)
    }

    /// A new auto-renewable subscription by `customer`, its first period `seconds` long; no
    /// notification (a payer's own submission is what grants it).
    func subscribe(_ customer: String, seconds: Int64) async throws -> FakePurchase {
        try await admin("purchases", FakePurchaseRequest(
            productId: Self.subscription, type: FakeProductType.autoRenewable.rawValue, customer: customer, expiresInSeconds: seconds,
            notify: false), expect: 201)
    }

    /// Apple renews once the latest period has ended; the fake POSTs DID_RENEW to the API.
    func renew(_ purchase: FakePurchase, seconds: Int64) async throws -> FakePurchase {
        if let end = purchase.expiresDate {
            let wait = Double(end) / 1000 - Date().timeIntervalSince1970 + 0.05
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        }
        return try await admin("renew", Renewal(originalTransactionId: purchase.originalTransactionId, expiresInSeconds: seconds), expect: 201)
    }

    /// What StoreKit 2 hands the app now: `Transaction.jwsRepresentation`, signed by the fake as
    /// the purchase stands (after a refund, with its revocation). Each call is Apple signing again:
    /// new bytes, a new signedDate, the same transaction.
    func signed(_ purchase: FakePurchase) async throws -> String {
        let answer: SignedTransaction = try await admin("signed-transaction", TransactionRequest(purchase), expect: 200)
        return answer.signedTransaction
    }

    /// What StoreKit 2's `AppTransaction.shared` hands the app of `customer`: their download,
    /// first of `originalApplicationVersion`.
    func appTransaction(_ customer: String, originalApplicationVersion: String) async throws -> String {
        struct Request: Encodable { var customer: String; var originalApplicationVersion: String }
        struct Answer: Decodable { var signedAppTransaction: String }
        let answer: Answer = try await admin("app-transaction", Request(customer: customer, originalApplicationVersion: originalApplicationVersion),
                                             expect: 200)
        return answer.signedAppTransaction
    }

    /// The app receipt on the device after `purchases`, signed by the fake as Apple signs receipts.
    func receipt(_ purchases: [FakePurchase]) async throws -> String {
        let answer: MintedReceipt = try await admin("receipts", Self.contents(purchases), expect: 201)
        return answer.receiptData
    }

    /// An app receipt holding `purchases`, signed by the attacker's own CA.
    func foreignReceipt(_ purchases: [FakePurchase]) throws -> String {
        try Self.contents(purchases).pkcs7(signer: foreign.receiptSigner)
    }

    /// A signed transaction for `purchase` made with the attacker's own CA.
    func foreignSigned(_ purchase: FakePurchase) throws -> String {
        try FakeSigner(pki: foreign, bundleId: FraudFleet.bundleID).signTransaction(purchase)
    }

    func familyShare(_ purchase: FakePurchase, with customer: String) async throws -> FakePurchase {
        var request = TransactionRequest(purchase)
        request.customer = customer
        return try await admin("family-share", request, expect: 201)
    }

    /// Apple refunds: the fake sends REFUND to the API.
    func refund(_ purchase: FakePurchase) async throws {
        let _: FakePurchase = try await admin("refund", TransactionRequest(purchase), expect: 200)
    }

    private struct TransactionRequest: Encodable {
        var transactionId: String
        var environment: String
        var customer: String?

        init(_ purchase: FakePurchase) {
            transactionId = purchase.transactionId
            environment = purchase.environment.rawValue
        }
    }

    private struct Renewal: Encodable { var originalTransactionId: String; var expiresInSeconds: Int64 }
    private struct SignedTransaction: Decodable { var signedTransaction: String }
    private struct MintedReceipt: Decodable {
        var receiptData: String
        enum CodingKeys: String, CodingKey { case receiptData = "receipt_data" }
    }

    /// POSTs `body` to `/fake/admin/<route>` and decodes the answer; another status is a setup failure.
    private func admin<Body: Encodable, Answer: Decodable>(_ route: String, _ body: Body, expect status: Int) async throws -> Answer {
        let response = try await http.post(url: adminURL + "/" + route, headers: ["Content-Type": "application/json"],
                                           body: Array(try JSONEncoder().encode(body)), timeout: .seconds(30))
        guard response.status == status else {
            throw FraudError("the fake App Store answered \(route) with HTTP \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(response.body))
        } catch {
            throw FraudError("the fake App Store's \(route) answer is not what it documents: \(error)")
        }
    }

    private static func contents(_ purchases: [FakePurchase]) -> FakeReceipt {
        FakeReceipt(bundleID: FraudFleet.bundleID, inApp: purchases.map {
            FakeTransaction(transactionID: $0.transactionId, originalTransactionID: $0.originalTransactionId, productID: $0.productId,
                            quantity: $0.quantity, purchaseDateMs: $0.purchaseDate, expiresDateMs: $0.expiresDate,
                            webOrderLineItemID: $0.webOrderLineItemId)
        })
    }
}
