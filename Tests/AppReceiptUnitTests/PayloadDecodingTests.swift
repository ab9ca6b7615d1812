import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

func rfc3339(_ text: String) -> Date? { RFC3339Date.parse(Array(text.utf8)[...]) }

@Suite("App receipts: the payload's fields")
struct PayloadDecodingTests {
    let verifier = try! makeVerifier()

    @Test func fieldsOfUnknownTypesAreKeptRawNotRefused() async throws {
        let received = try await verifier.verify(der: try mint())
        #expect(received.otherAttributes.map(\.type) == [8, 9999])
        #expect(received.otherAttributes[1].value == [0xDE, 0xAD])
        #expect(received.purchases[1].otherAttributes == [AppReceiptAttribute(type: 1707, value: [0x02, 0x01, 0x03])])
    }

    @Test func applesEmptyDatesMeanNone() async throws {
        let received = try await verifier.verify(der: try mint())
        #expect(received.purchases[0].subscriptionExpirationDate == nil)
        #expect(received.purchases[0].cancellationDate == nil)
    }

    @Test func aKnownFieldWithAValueOfTheWrongTypeIsRefused() async throws {
        var receipt = sampleReceipt()
        receipt.bundleId = nil
        receipt.otherAttributes = [AppReceiptAttribute(type: 2, value: [0x02, 0x01, 0x05])]
        #expect(await refusal { try await verifier.verify(der: try mint(receipt)) } == .unparsableAttribute)
        receipt = sampleReceipt()
        receipt.creationDate = nil
        receipt.otherAttributes = [AppReceiptAttribute(type: 12, value: [0x16, 0x09] + Array("yesterday".utf8))]
        #expect(await refusal { try await verifier.verify(der: try mint(receipt)) } == .unparsableAttribute)
        receipt = sampleReceipt()
        receipt.purchases[0].quantity = nil
        receipt.purchases[0].otherAttributes = [AppReceiptAttribute(type: 1701, value: [0x02, 0x01, 0xFF])]
        #expect(await refusal { try await verifier.verify(der: try mint(receipt)) } == .unparsableAttribute)
    }

    @Test func aKnownFieldTwiceIsRefusedNotGuessed() async throws {
        var receipt = sampleReceipt()
        receipt.otherAttributes = [AppReceiptAttribute(type: 2, value: [0x0C, 0x03] + Array("com".utf8))]
        #expect(await refusal { try await verifier.verify(der: try mint(receipt)) } == .unparsableAttribute)
    }

    @Test func aPurchaseThatIsNotASetIsRefused() async throws {
        var receipt = sampleReceipt()
        receipt.otherAttributes = [AppReceiptAttribute(type: 17, value: [0x04, 0x00])]
        #expect(await refusal { try await verifier.verify(der: try mint(receipt)) } == .unparsableAttribute)
    }

    @Test func contentThatIsNotASetOfAttributesIsRefused() async throws {
        let signer = AppReceiptSigner(identity: pki.receiptSigner)
        for content: [UInt8] in [[0x30, 0x00], [0x31, 0x03, 0x02, 0x01, 0x00], [0x31, 0x05, 0x30, 0x03, 0x02, 0x01, 0x00], [0x31], []] {
            #expect(await refusal { try await verifier.verify(der: try signer.sign(content: content)) } == .malformedPayload)
        }
    }

    @Test func datesAreReadInTheShapesReceiptsUse() throws {
        #expect(rfc3339("2025-06-15T15:06:40Z") == reference)
        #expect(rfc3339("2025-06-15T15:06:40.250Z") == reference.addingTimeInterval(0.25))
        #expect(rfc3339("2025-06-15T23:06:40+0800") == reference)
        #expect(rfc3339("2025-06-15T08:06:40-07:00") == reference)
        #expect(rfc3339("4001-01-01T00:00:00Z") == Date(timeIntervalSince1970: 64_092_211_200))
        #expect(rfc3339("2024-02-29T00:00:00Z") != nil)
        for bad in ["2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-06-15 15:06Z", "2025-06-15T15:06:40", "2025-06-15T15:06:40Zjunk", "", "yesterday"] {
            #expect(rfc3339(bad) == nil, "\(bad)")
        }
    }
}
