import AppStore
import Foundation
import Testing

struct VerifyReceiptRequestTests {
    @Test func lineWrappedBase64IsStrippedOfWhitespaceAndNewlines() {
        let request = VerifyReceiptRequest(receiptData: "MIIT\r\nabc d\n\tef==  \n")
        #expect(request.receiptData == "MIITabcdef==")
    }

    @Test func bodyUsesApplesFieldNames() throws {
        let request = VerifyReceiptRequest(receiptData: "QUJD\n", password: "s3cret", excludeOldTransactions: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(request.encodedBody())) as? [String: Any])
        #expect(object["receipt-data"] as? String == "QUJD")
        #expect(object["password"] as? String == "s3cret")
        #expect(object["exclude-old-transactions"] as? Bool == true)
    }

    @Test func passwordIsOmittedWhenNotConfigured() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(VerifyReceiptRequest(receiptData: "QUJD").encodedBody())) as? [String: Any])
        #expect(object["password"] == nil)
        #expect(object["exclude-old-transactions"] as? Bool == false)
    }

    @Test func descriptionNeverContainsTheReceiptOrSecret() {
        let request = VerifyReceiptRequest(receiptData: "SECRETRECEIPT", password: "hunter2")
        #expect(!request.description.contains("SECRETRECEIPT"))
        #expect(!request.description.contains("hunter2"))
    }
}
