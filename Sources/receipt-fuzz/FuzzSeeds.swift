import AppleSignedData
import AppleTestPKI
import Foundation

/// Seed receipts for the fuzzer: every layout the signer makes, RSA and EC, with a range of
/// payloads, so that the corpus starts deep in every branch of the parser.
enum FuzzSeeds {
    static func contents(createdAt: Date) -> [AppReceiptContents] {
        let purchase = AppReceiptPurchase(
            quantity: 2, productId: "coins.100", transactionId: "1000000000000001", purchaseDate: createdAt.addingTimeInterval(-60),
            originalTransactionId: "1000000000000001", originalPurchaseDate: createdAt.addingTimeInterval(-60)
        )
        let period = AppReceiptPurchase(
            quantity: 1, productId: "pro.monthly", transactionId: "1000000000000002", purchaseDate: createdAt.addingTimeInterval(-86_400),
            originalTransactionId: "1000000000000000", originalPurchaseDate: createdAt.addingTimeInterval(-90 * 86_400),
            subscriptionExpirationDate: createdAt.addingTimeInterval(29 * 86_400), webOrderLineItemId: 1_000_000_000_000_777,
            cancellationDate: createdAt, isInTrialPeriod: false, isInIntroOfferPeriod: true, promotionalOfferId: "intro",
            otherAttributes: [AppReceiptAttribute(type: 1707, value: [0x02, 0x01, 0x03])]
        )
        let full = AppReceiptContents(
            receiptType: "Production", bundleId: "com.example.fuzz", appVersion: "7", opaqueValue: [1, 2, 3, 4, 5, 6, 7, 8],
            sha1Hash: Array(repeating: 0x11, count: 20), creationDate: createdAt, purchases: [purchase, period],
            originalPurchaseDate: createdAt.addingTimeInterval(-365 * 86_400), originalAppVersion: "1.0",
            otherAttributes: [AppReceiptAttribute(type: 8, value: [0x16, 0x00])]
        )
        var sandbox = full
        sandbox.receiptType = "ProductionSandbox"
        sandbox.purchases = [purchase]
        var empty = AppReceiptContents(receiptType: "Production", bundleId: "com.example.fuzz", creationDate: createdAt)
        empty.expirationDate = createdAt.addingTimeInterval(86_400)
        return [full, sandbox, empty]
    }

    static func receipts(_ contents: [AppReceiptContents], rsa: RSATestPKI, ec: TestPKI) throws -> [[UInt8]] {
        var layouts: [AppReceiptSigner.Options] = [AppReceiptSigner.Options()]
        var der = AppReceiptSigner.Options()
        der.encoding = .der
        der.signedAttributes = true
        der.digest = .sha1
        der.namedSignatureAlgorithm = true
        layouts.append(der)
        var xcode = AppReceiptSigner.Options()
        xcode.xcodeDoubleWrap = true
        xcode.segmentSize = 40
        layouts.append(xcode)

        var seeds: [[UInt8]] = []
        for (index, layout) in layouts.enumerated() {
            seeds.append(try AppReceiptSigner(identity: rsa.receiptSigner, options: layout).sign(contents[index % contents.count]))
        }
        seeds.append(try AppReceiptSigner(identity: ec.receiptSigner, options: der.with { $0.digest = .sha256 }).sign(contents[0]))
        seeds.append(try AppReceiptSigner(identity: ec.receiptSigner).sign(contents[2]))
        return seeds
    }
}

extension AppReceiptSigner.Options {
    func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}
