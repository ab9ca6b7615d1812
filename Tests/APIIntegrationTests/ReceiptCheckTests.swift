import AppleSignedData
import AppleTestPKI
import FakeAppStore
import Foundation
import Testing
import X509

/// POST /v1/receipts with the receipt check on (`receiptq api --receipt-check local`, the
/// command's default): what provably is not Apple's receipt for our apps is answered 422
/// problem+json and never stored; a genuine receipt, or one we merely cannot confirm, is stored.
@Suite("POST /v1/receipts: receipts checked locally before they are stored")
struct ReceiptCheckTests {
    /// The CA the fake App Store signs with; the API trusts it as `--signed-data-root` makes it.
    static let pki = try! TestPKI()
    static let bundle = "com.example.app"
    /// Apple signed iOS 6 transaction receipts with RSA keys.
    static let rsa = try! RSATestPKI()

    static func start() async throws -> APIHarness {
        let verifier = try AppReceiptVerifier(configuration: .init(trustedRoots: [pki.root], bundleIds: [bundle],
                                                                   environments: [.production, .sandbox]))
        return try await APIHarness.start { $0.receiptCheck = verifier }
    }

    static func body(_ receiptData: String, _ transaction: String) -> [String: Any] {
        ["receipt_data": receiptData, "transaction_id": transaction, "user_id": "user-1"]
    }

    static func receipt(_ id: String, bundle: String = bundle, signer: ReceiptSigningIdentity = pki.receiptSigner) throws -> String {
        try FakeReceipt(bundleID: bundle, inApp: [FakeTransaction(transactionID: id, productID: "coins100")]).pkcs7(signer: signer)
    }

    @Test func aGenuineReceiptIsStored() async throws {
        let api = try await Self.start()
        let answer = try await api.post("/v1/receipts", json: Self.body(try Self.receipt("t1"), "t1"))
        #expect(answer.status == 202)
        // As iOS may send it: base64 broken into lines is the same receipt.
        let wrapped = AppReceiptSigner.base64(Array(Data(base64Encoded: try Self.receipt("t2"))!), lineLength: 76)
        #expect(try await api.post("/v1/receipts", json: Self.body(wrapped, "t2")).status == 202)
        await api.stop()
    }

    @Test("an iOS 6 transaction receipt of our app is stored for Apple to verify; another app's is 422")
    func anIOS6TransactionReceiptIsApplesToDecide() async throws {
        let api = try await Self.start()
        let ours = try FakeReceipt(bundleID: Self.bundle, environment: .sandbox, inApp: [FakeTransaction(transactionID: "t6", productID: "coins100")])
            .transactionReceipt(signer: Self.rsa.receiptSigner)
        #expect(ours.hasPrefix("ewoJInNpZ25hdHVyZSIgPSAi"))
        #expect(try await api.post("/v1/receipts", json: Self.body(ours, "t6")).status == 202)
        let theirs = try FakeReceipt(bundleID: "com.other.app", inApp: [FakeTransaction(transactionID: "t7", productID: "coins100")])
            .transactionReceipt(signer: Self.rsa.receiptSigner)
        let refused = try await api.post("/v1/receipts", json: Self.body(theirs, "t7"))
        #expect(refused.status == 422 && (refused.json["detail"] as? String)?.contains("bundle id mismatch") == true)
        await api.stop()
    }

    @Test func whatIsProvablyNotOurReceiptIsAnswered422AndNeverStored() async throws {
        let api = try await Self.start()
        let attacker = try TestPKI()   // Apple's names, its own keys
        var tampered = Array(Data(base64Encoded: try Self.receipt("t-tampered"))!)
        let at = try #require(tampered.firstRange(of: Array("coins100".utf8))?.lowerBound)
        tampered[at] = UInt8(ascii: "C")
        let cases: [(String, String, String)] = [
            ("text", Data("hello, not a receipt".utf8).base64EncodedString(), "app receipt refused"),
            ("fake JSON", FakeReceipt(bundleID: Self.bundle, inApp: []).base64(), "app receipt refused"),
            ("another app", try Self.receipt("t-other", bundle: "com.other.app"), "bundle id mismatch"),
            ("look-alike CA", try Self.receipt("t-forged", signer: attacker.receiptSigner), "certificate chain not trusted"),
            ("tampered", Data(tampered).base64EncodedString(), "bad signature"),
        ]
        for (name, receiptData, detail) in cases {
            let answer = try await api.post("/v1/receipts", json: Self.body(receiptData, "t-\(name)"))
            #expect(answer.status == 422, "\(name)")
            #expect(answer.contentType == "application/problem+json", "\(name)")
            #expect(answer.json["type"] as? String == "urn:receiptq:problem:invalid-receipt", "\(name)")
            #expect((answer.json["detail"] as? String)?.contains(detail) == true, "\(name): \(answer.json["detail"] ?? "")")
        }
        #expect(try await api.count("SELECT count(*) FROM receiptq.jobs") == 0)
        await api.stop()
    }

    @Test func aReceiptUnderARootWeDoNotKnowIsStoredForAppleToDecide() async throws {
        let api = try await Self.start()
        var options = TestPKI.Options()
        options.names = TestPKINames(root: try DistinguishedName { CommonName("Apple Root CA - G9"); OrganizationName("Apple Inc.") },
                                     intermediate: TestPKINames.appleLike.intermediate, leaf: TestPKINames.appleLike.leaf)
        let newRoot = try TestPKI(options)
        let answer = try await api.post("/v1/receipts", json: Self.body(try Self.receipt("t-new", signer: newRoot.receiptSigner), "t-new"))
        #expect(answer.status == 202)
        await api.stop()
    }
}
