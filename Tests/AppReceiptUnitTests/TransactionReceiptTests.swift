import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

/// iOS 6 transaction receipts — the founding example's shape — are recognised: one of our apps'
/// goes to Apple (a gap, never a refusal), another app's is not ours, bytes of neither shape are
/// not Apple's. Their signature blob is read exactly.
@Suite("iOS 6 transaction receipts: recognised, read exactly, sent to Apple")
struct TransactionReceiptTests {
    static let info: [String: String] = [
        "bid": bundleId, "bvrs": "20120427", "transaction-id": "1000000046178817", "original-transaction-id": "1000000046178817",
        "product-id": "com.example.download", "quantity": "1", "purchase-date-ms": "1335798355868", "item-id": "521129812",
    ]

    static func minted(_ info: [String: String] = info, environment: String? = "Sandbox") throws -> String {
        try TransactionReceiptSigner(identity: pki.receiptSigner).signBase64(purchaseInfo: info, environment: environment)
    }

    static func bytes(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64)!) }

    @Test func itIsTheFoundingExamplesShapeAndReadsBackExactly() throws {
        let base64 = try Self.minted()
        #expect(base64.hasPrefix("ewoJInNpZ25hdHVyZSIgPSAi"), "base64 of {\\n\\t\"signature\" = \"")
        let receipt = try #require(TransactionReceipt(bytes: Self.bytes(base64)))
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.bundleId == bundleId && receipt.transactionId == "1000000046178817")
        #expect(receipt.productId == "com.example.download" && receipt.quantity == 1 && receipt.purchaseDateMs == 1_335_798_355_868)
        #expect(receipt.signature.version == 3 && receipt.signature.signature.count == 256)
        #expect(receipt.isSigned(by: pki.leaf))
        #expect(!receipt.isSigned(by: try makePKI().leaf), "another key did not sign it")
    }

    @Test func aChangedPurchaseInfoNoLongerVerifies() throws {
        let original = try #require(String(data: Data(base64Encoded: try Self.minted())!, encoding: .utf8))
        let swapped = try Self.minted(Self.info.merging(["product-id": "com.example.gems"]) { $1 })
        let other = try #require(TransactionReceipt(bytes: Self.bytes(swapped)))
        var forged = try #require(TransactionReceipt(bytes: Array(original.utf8)))
        forged.purchaseInfoBytes = other.purchaseInfoBytes
        #expect(!forged.isSigned(by: pki.leaf))
    }

    @Test(arguments: [
        "{ \"signature\" = \"AAAA\"; }",                                             // no purchase-info
        "{ \"purchase-info\" = \"e30=\"; \"signature\" = \"AAAA\"; }",               // a blob of the wrong size
        "{ \"purchase-info\" = \"e30=\"; \"purchase-info\" = \"e30=\"; }",           // a key given twice
        "{ \"purchase-info\" = \"e30=; }",                                           // unterminated string
        "{ \"purchase-info\" = \"%%%\"; \"signature\" = \"AAAA\"; }",                // not base64
        "{ \"purchase-info\" = \"e30=\"; \"signature\" = \"AAAA\"; } trailing",      // bytes after the dictionary
        "{ \"a\" = ( \"nested\" ); }",                                               // not the one shape
    ])
    func anythingOutsideTheShapeIsRefusedNotGuessed(text: String) {
        #expect(TransactionReceipt(bytes: Array(text.utf8)) == nil)
    }

    @Test func oneOfOurAppsIsAppleToDecide() async throws {
        let verifier = try makeVerifier()
        #expect(await refusal { try await verifier.verify(base64: try Self.minted()) } == .transactionReceipt)
        #expect(!AppReceiptVerificationError.Reason.transactionReceipt.provesNotAnAppleReceiptOfOurs)
    }

    @Test func anotherAppsIsNotOursGenuineOrForged() async throws {
        let verifier = try makeVerifier()
        let foreign = try Self.minted(Self.info.merging(["bid": "com.other.app"]) { $1 })
        #expect(await refusal { try await verifier.verify(base64: foreign) } == .bundleIdMismatch)
    }

    @Test func bytesOfItsOuterShapeThatAreNotOneAreNotApples() async throws {
        let verifier = try makeVerifier()
        let garbage = Data("{ \"hello\" = \"world\"; }".utf8).base64EncodedString()
        #expect(await refusal { try await verifier.verify(base64: garbage) } == .malformedEncoding)
    }
}
