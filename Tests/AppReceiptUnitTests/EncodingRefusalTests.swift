import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("App receipts: refused before any cryptography, each with its reason")
struct EncodingRefusalTests {
    let verifier = try! makeVerifier()

    @Test func textThatIsNotBase64IsRefusedAsSuch() async {
        #expect(await refusal { try await verifier.verify(base64: "this is not a receipt!") } == .notBase64)
        #expect(await refusal { try await verifier.verify(base64: "") } == .notBase64)
        #expect(await refusal { try await verifier.verify(base64: "MIIB====") } == .notBase64)
        #expect(await refusal { try await verifier.verify(base64: "MII=B") } == .notBase64)
    }

    @Test func bytesThatAreNotASignedDataContainerAreRefused() async {
        #expect(await refusal { try await verifier.verify(der: Array("hello, world".utf8)) } == .truncated)
        #expect(await refusal { try await verifier.verify(der: [0x04, 0x01, 0x00]) } == .notSignedData)
        #expect(await refusal { try await verifier.verify(der: [0x30, 0x00]) } == .malformedEncoding)
        #expect(await refusal { try await verifier.verify(der: [0x00, 0x00]) } == .malformedEncoding)
        #expect(await refusal { try await verifier.verify(der: []) } == .truncated)
    }

    @Test(arguments: [AppReceiptSigner.Encoding.der, .indefiniteLength])
    func aTruncatedReceiptIsRefusedAsTruncated(_ encoding: AppReceiptSigner.Encoding) async throws {
        let receipt = try mint { $0.encoding = encoding }
        for cut in [1, 2, 100, receipt.count / 2, receipt.count - 1] {
            #expect(await refusal { try await verifier.verify(der: Array(receipt.dropLast(cut))) } == .truncated)
        }
    }

    @Test(arguments: [AppReceiptSigner.Encoding.der, .indefiniteLength])
    func bytesAfterTheReceiptAreRefusedNotIgnored(_ encoding: AppReceiptSigner.Encoding) async throws {
        let receipt = try mint { $0.encoding = encoding }
        #expect(await refusal { try await verifier.verify(der: receipt + [0x00]) } == .trailingBytes)
        #expect(await refusal { try await verifier.verify(der: receipt + [0x00, 0x00]) } == .trailingBytes)
        #expect(await refusal { try await verifier.verify(der: receipt + receipt) } == .trailingBytes)
        #expect(await refusal { try await verifier.verify(base64: AppReceiptSigner.base64(receipt + [0x05, 0x00])) } == .trailingBytes)
    }

    @Test func deeplyNestedBERIsRefusedBeforeItIsParsed() async {
        let indefinite = Array(repeating: [UInt8]([0x30, 0x80]), count: 10_000).joined() + [UInt8](repeating: 0x00, count: 20_000)
        #expect(await refusal { try await verifier.verify(der: indefinite) } == .nestingTooDeep)
        var definite: [UInt8] = [0x05, 0x00]
        for _ in 0..<40 { definite = SignedDataParts.tlv(0x30, definite) }
        #expect(await refusal { try await verifier.verify(der: definite) } == .nestingTooDeep)
        let unterminated = Array(Array(repeating: [UInt8]([0x30, 0x80]), count: 16).joined())
        #expect(await refusal { try await verifier.verify(der: unterminated) } == .truncated)
    }

    @Test func anIndefiniteLengthOnAPrimitiveElementIsMalformed() async {
        #expect(await refusal { try await verifier.verify(der: [0x30, 0x80, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00]) } == .malformedEncoding)
    }

    @Test func aReceiptOverTheSizeLimitIsRefusedBeforeDecoding() async throws {
        let receipt = try mint()
        let small = try makeVerifier(limits: AppReceiptLimits(maximumBytes: receipt.count - 1))
        #expect(await refusal { try await small.verify(der: receipt) } == .tooLarge)
        #expect(await refusal { try await small.verify(base64: AppReceiptSigner.base64(receipt)) } == .tooLarge)
        let huge = String(repeating: "A", count: 3 << 20)
        #expect(await refusal { try await verifier.verify(base64: huge) } == .tooLarge)
    }
}
