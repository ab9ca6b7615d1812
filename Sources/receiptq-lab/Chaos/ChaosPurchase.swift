import CommandSupport
import FakeAppStore
import Foundation

/// One purchase the chaos load submits, and what its job must end as.
///
/// Every twentieth purchase is forged (Apple answers 21003: rejected); the one after a forged one
/// re-sends the purchase before it inside a newer receipt, as apps do after a restore — for that
/// transaction exactly one job is granted and the other ends `already_granted`. All others are
/// plain purchases that must be granted.
struct ChaosPurchase: Sendable {
    enum Kind: String, Sendable, Codable { case purchase, resent, forged }

    static let bundleID = "com.example.chaos"

    let number: Int
    let kind: Kind
    let transactionID: String
    /// The request body of POST /v1/receipts (6 KiB of receipt, like a real one).
    let body: [UInt8]

    init(number: Int) {
        self.number = number
        switch number % 20 {
        case 0: kind = .forged
        case 1 where number >= 2: kind = .resent
        default: kind = .purchase
        }
        let own = Self.transactionID(number)
        // A resent purchase is the earlier purchase's, by the same user.
        let buyer = kind == .resent ? number - 2 : number
        transactionID = Self.transactionID(buyer)
        let product = "com.example.coins\(buyer % 3)"
        var inApp = [FakeTransaction(transactionID: transactionID, productID: product)]
        if kind == .resent { inApp.append(FakeTransaction(transactionID: own, productID: product)) }
        let receipt = FakeReceipt(bundleID: Self.bundleID, inApp: inApp, forcedStatus: kind == .forged ? 21_003 : nil)
            .padded(toBase64Length: 6144).base64()
        let object = ["receipt_data": receipt, "transaction_id": transactionID,
                      "user_id": "chaos-user-\(buyer % 200)", "product_id": product]
        body = Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    static func transactionID(_ number: Int) -> String { "\(3_000_000_000 + number)" }
}
