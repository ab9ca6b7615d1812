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

    @Test(arguments: [
        ("QUJD", nil as String?, false),
        ("QUJD+/=", "s3cret", true),
        (String(repeating: "QUJDREVG", count: 800), "secret/with/slashes", false),
        ("a\"b\\c/d", "quote\" back\\ slash/", true),
        ("ctl\u{00}\u{01}\u{08}\u{0C}\u{0A}\u{0D}\u{09}\u{1F}\u{7F}", "\u{1B}[0m", false),
        ("QUJD", "pässwörd ✓ 😀 \u{2028}", true),
        ("", "", false),
    ])
    func httpBodyIsByteForByteWhatJSONEncoderWrites(receipt: String, password: String?, excludeOld: Bool) {
        let request = VerifyReceiptRequest(receiptData: receipt, password: password, excludeOldTransactions: excludeOld)
        let body = request.httpBody().withUnsafeBytes { Array($0) }
        #expect(body == Self.jsonEncoderBody(request))
    }

    /// The oracle: the body as `JSONEncoder` writes it with sorted keys and unescaped slashes.
    static func jsonEncoderBody(_ request: VerifyReceiptRequest) -> [UInt8] {
        struct Wire: Encodable {
            let receiptData: String
            let password: String?
            let excludeOldTransactions: Bool
            enum CodingKeys: String, CodingKey {
                case receiptData = "receipt-data", password, excludeOldTransactions = "exclude-old-transactions"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let wire = Wire(receiptData: request.receiptData, password: request.password, excludeOldTransactions: request.excludeOldTransactions)
        return (try? Array(encoder.encode(wire))) ?? []
    }

    @Test func base64WithoutWhitespaceIsKeptAsIs() {
        let receipt = String(repeating: "MIIT+/ab", count: 100) + "=="
        #expect(VerifyReceiptRequest.strippingWhitespace(receipt) == receipt)
        #expect(VerifyReceiptRequest.strippingWhitespace("ab\u{00A0}cd\u{2028}") == "abcd")
    }
}
