import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("App receipts: what is accepted")
struct AcceptanceTests {
    @Test func aReceiptInApplesShapeVerifiesAndDecodesEveryField() async throws {
        let verifier = try makeVerifier()
        let received = try await verifier.verify(der: try mint())
        #expect(received == sampleReceipt())
        #expect(received.environment == .sandbox)
        #expect(received.purchases[1].cancellationDate == reference.addingTimeInterval(-1 * day))
        #expect(received.purchases[0].subscriptionExpirationDate == nil)
    }

    @Test func theSameReceiptAsBase64WithLineBreaksVerifies() async throws {
        let verifier = try makeVerifier()
        let text = AppReceiptSigner.base64(try mint(), lineLength: 76) + "\n"
        #expect(text.contains("\r\n"))
        #expect(try await verifier.verify(base64: text) == sampleReceipt())
    }

    static let layouts: [AppReceiptSigner.Options] = {
        var layouts: [AppReceiptSigner.Options] = []
        for digest in AppReceiptDigestAlgorithm.allCases {
            for signedAttributes in [false, true] {
                for encoding in [AppReceiptSigner.Encoding.der, .indefiniteLength] {
                    for xcodeDoubleWrap in [false, true] {
                        var options = AppReceiptSigner.Options()
                        options.digest = digest
                        options.signedAttributes = signedAttributes
                        options.encoding = encoding
                        options.xcodeDoubleWrap = xcodeDoubleWrap
                        options.namedSignatureAlgorithm = signedAttributes
                        options.segmentSize = 97
                        layouts.append(options)
                    }
                }
            }
        }
        return layouts
    }()

    @Test(arguments: layouts)
    func everyLayoutVerifiesSHA1OrSHA256WithOrWithoutSignedAttributesDEROrBERWrappedOrNot(_ layout: AppReceiptSigner.Options) async throws {
        let verifier = try makeVerifier()
        let receipt = try mint { $0 = layout }
        #expect(try await verifier.verify(der: receipt) == sampleReceipt())
        let parsed = try UnverifiedAppReceipt(der: receipt)
        #expect(parsed.digestAlgorithm == layout.digest)
        #expect(parsed.hasSignedAttributes == layout.signedAttributes)
    }

    @Test func aReceiptSignedWithAnECKeyVerifies() async throws {
        var options = TestPKI.Options()
        options.reference = reference
        let ec = try TestPKI(options)
        let verifier = try makeVerifier(trusting: [ec.root])
        #expect(try await verifier.verify(der: try mint(by: ec.receiptSigner)) == sampleReceipt())
        #expect(try await verifier.verify(der: try mint(by: ec.receiptSigner) { $0.signedAttributes = true }) == sampleReceipt())
    }

    @Test func aReceiptWithHundredsOfPurchasesOrNoneVerifies() async throws {
        let verifier = try makeVerifier()
        var many = sampleReceipt()
        many.purchases = (0..<500).map { index in
            AppReceiptPurchase(quantity: 1, productId: "pro.monthly", transactionId: "\(3_000_000_000 + index)",
                               purchaseDate: reference.addingTimeInterval(Double(-index) * day), webOrderLineItemId: Int64(index))
        }
        #expect(try await verifier.verify(der: try mint(many)) == many)
        var none = sampleReceipt()
        none.purchases = []
        #expect(try await verifier.verify(der: try mint(none)).purchases.isEmpty)
    }

    @Test func aVerifierForBothEnvironmentsAcceptsEitherAndSaysWhich() async throws {
        let verifier = try makeVerifier(environments: [.production, .sandbox])
        #expect(try await verifier.verify(der: try mint(sampleReceipt(environment: .production))).environment == .production)
        #expect(try await verifier.verify(der: try mint(sampleReceipt(environment: .sandbox))).environment == .sandbox)
    }

    @Test func theRootNeedNotBeSentAndCertificatesMayComeInAnyOrder() async throws {
        let verifier = try makeVerifier()
        var identity = pki.receiptSigner
        identity.certificates = [pki.intermediate, pki.leaf]
        _ = try await verifier.verify(der: try mint(by: identity))
        identity.certificates = [pki.root, pki.intermediate, pki.leaf]
        _ = try await verifier.verify(der: try mint(by: identity))
    }

    @Test func aReceiptOutlivesItsSigningCertificateItIsJudgedAtItsCreationDate() async throws {
        let expiring = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        let verifier = try makeVerifier(trusting: [expiring.root], now: reference)
        let created = reference.addingTimeInterval(-2 * day)
        #expect(try await verifier.verify(der: try mint(sampleReceipt(createdAt: created), by: expiring.receiptSigner)).creationDate == created)
    }

    @Test func anUnverifiedReceiptCanBeReadWithoutTrustingIt() throws {
        let receipt = try UnverifiedAppReceipt(base64: AppReceiptSigner.base64(try mint()))
        #expect(receipt.contents == sampleReceipt())
        #expect(receipt.digestAlgorithm == .sha256)
        #expect(!receipt.hasSignedAttributes)
        #expect(receipt.certificateCount == 3)
    }
}
