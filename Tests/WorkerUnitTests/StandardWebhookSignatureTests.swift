import Foundation
import Testing
import WebhookSignature

/// Deliveries are signed the Standard Webhooks way, so a backend's Standard Webhooks library
/// verifies them; secrets stored before that keep working (as raw keys).
@Suite("Webhooks: Standard Webhooks signatures and secrets")
struct StandardWebhookSignatureTests {
    // The Standard Webhooks libraries' own test vector.
    static let vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let vectorID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let vectorBody = Array(#"{"test": 2432232314}"#.utf8)
    static let vectorTimestamp: Int64 = 1_614_265_330
    let now = Date(timeIntervalSince1970: 1_614_265_330)

    func headers(_ signature: String, id: String = vectorID, timestamp: Int64 = vectorTimestamp) -> [String: String] {
        ["webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature]
    }

    @Test func signsTheStandardWebhooksTestVectorAsTheReferenceLibrariesDo() {
        let signature = StandardWebhookSignature.sign(id: Self.vectorID, timestamp: Self.vectorTimestamp, body: Self.vectorBody,
                                                      secrets: [WebhookSecret(Self.vectorSecret)])
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    /// How a stored secret becomes the HMAC key: whsec_ + base64 → the decoded bytes; anything
    /// else (secrets added before Standard Webhooks) → the string's own UTF-8 bytes.
    @Test(arguments: [
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true, 24),
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw==", false, 40),           // padding where none belongs
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLQ==", true, 22),             // padded
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLQ", true, 22),               // unpadded, as the libraries accept
        ("whsec_" + String(repeating: "ab12", count: 12), true, 36),      // the README's old `whsec_<hex>` recipe
        ("whsec_test_0123456789abcdef", false, 27),                       // '_' is not base64
        ("whsec_demo_6F9619FF-8B86-D011-B42D-00C04FC964FF", false, 47),   // '-' neither
        ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaL", false, 35),               // 4n+1 characters cannot be base64
        ("a-plain-old-secret-0123456789", false, 29),                     // no prefix
        ("whsec_", false, 6),
    ])
    func aStoredSecretsKey(_ secret: String, standard: Bool, keyBytes: Int) {
        let parsed = WebhookSecret(secret)
        #expect(parsed.isStandard == standard, "\(secret)")
        #expect(parsed.key.count == keyBytes, "\(secret)")
        if !standard { #expect(parsed.key == Array(secret.utf8)) }
        #expect(!parsed.description.contains(secret))
    }

    @Test func aGeneratedSecretIsARecommendedOne() {
        let secret = WebhookSecret(WebhookSecret.generate())
        #expect(secret.isStandard && secret.isRecommended && secret.key.count == 32)
        #expect(WebhookSecret.generate() != WebhookSecret.generate())
    }

    @Test func aLegacySecretSignsWithItsRawBytes() throws {
        let legacy = "whsec_test_0123456789abcdef"
        let signature = StandardWebhookSignature.sign(id: Self.vectorID, timestamp: Self.vectorTimestamp, body: Self.vectorBody,
                                                      secrets: [WebhookSecret(legacy)])
        // HMAC-SHA256 keyed with the 27 bytes "whsec_test_0123456789abcdef" (python3's hmac agrees).
        #expect(signature == "v1,VfurJ9brcFH8zVicfKWyit3Gg5hKSicuhnBoaZwjS64=")
        try StandardWebhookSignature.verify(headers: headers(signature), body: Self.vectorBody, secrets: [WebhookSecret(legacy)], now: now)
    }

    @Test func duringARotationEachSecretSignsAndEitherVerifies() throws {
        let new = WebhookSecret(WebhookSecret.generate()), old = WebhookSecret("whsec_test_0123456789abcdef")
        let signature = StandardWebhookSignature.sign(id: "e1", timestamp: 1_614_265_330, body: Self.vectorBody, secrets: [new, old])
        #expect(signature.split(separator: " ").count == 2)
        #expect(signature.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
        for secret in [new, old] {
            try StandardWebhookSignature.verify(headers: headers(signature, id: "e1"), body: Self.vectorBody, secrets: [secret], now: now)
        }
        #expect(throws: StandardWebhookSignature.Failure.noMatchingSignature) {
            try StandardWebhookSignature.verify(headers: headers(signature, id: "e1"), body: Self.vectorBody,
                                                secrets: [WebhookSecret(WebhookSecret.generate())], now: now)
        }
    }

    @Test func whatAReceiverMustRefuse() {
        let valid = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        let secret = [WebhookSecret(Self.vectorSecret)]
        let cases: [(String, [String: String], [UInt8], StandardWebhookSignature.Failure)] = [
            ("another body", headers(valid), Self.vectorBody + [32], .noMatchingSignature),
            ("another id", headers(valid, id: "msg_other"), Self.vectorBody, .noMatchingSignature),
            ("another timestamp", headers(valid, timestamp: Self.vectorTimestamp + 1), Self.vectorBody, .noMatchingSignature),
            ("only another version", headers("v1a," + valid.dropFirst(3)), Self.vectorBody, .noMatchingSignature),
            ("not base64", headers("v1,%%%"), Self.vectorBody, .noMatchingSignature),
            ("too old", headers(valid, timestamp: Self.vectorTimestamp - 301), Self.vectorBody, .tooOld),
            ("too new", headers(valid, timestamp: Self.vectorTimestamp + 301), Self.vectorBody, .tooNew),
            ("no id", ["webhook-timestamp": "1614265330", "webhook-signature": valid], Self.vectorBody, .missingHeader("webhook-id")),
            ("no signature", ["webhook-id": "a", "webhook-timestamp": "1614265330"], Self.vectorBody, .missingHeader("webhook-signature")),
            ("timestamp not a number", headers(valid).merging(["webhook-timestamp": "soon"]) { $1 }, Self.vectorBody, .malformedTimestamp),
        ]
        for (name, headers, body, failure) in cases {
            #expect(throws: failure, "\(name)") {
                try StandardWebhookSignature.verify(headers: headers, body: body, secrets: secret, now: now)
            }
        }
    }

    @Test func headerNamesAreCaseInsensitiveAndOtherSignaturesAreSkipped() throws {
        let valid = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        let headers = ["Webhook-Id": Self.vectorID, "WEBHOOK-TIMESTAMP": "1614265330",
                       "Webhook-Signature": "v1a,AAAA v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= " + valid]
        try StandardWebhookSignature.verify(headers: headers, body: Self.vectorBody, secrets: [WebhookSecret(Self.vectorSecret)], now: now)
    }

    /// Each delivery carries the Standard Webhooks headers and, during the deprecation, the old
    /// ones, all signed with the same secrets; `webhook-id` is the event's id.
    @Test func aDeliveryCarriesBothSchemesSignedWithEverySecret() throws {
        let secrets = [WebhookSecret.generate(), "whsec_test_0123456789abcdef"]
        let body = Array(#"{"id":"5b0c","type":"verdict.delivered"}"#.utf8)
        let headers = WebhookDeliveryHeaders.make(eventID: "5b0c", body: body, secrets: secrets, timestamp: 1_614_265_330)
        #expect(headers["webhook-id"] == "5b0c" && headers["ReceiptQueue-Event-Id"] == "5b0c")
        #expect(headers["webhook-timestamp"] == "1614265330")
        #expect(headers["Content-Type"] == "application/json")
        for secret in secrets {
            try StandardWebhookSignature.verify(headers: headers, body: body, secrets: [WebhookSecret(secret)], now: now)
            try WebhookSignature.verify(header: try #require(headers["ReceiptQueue-Signature"]), body: body, secrets: [secret], now: now)
        }
    }
}
