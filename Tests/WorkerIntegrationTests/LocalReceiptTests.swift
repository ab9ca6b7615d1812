import AppleSignedData
import AppleTestPKI
import FakeAppStore
import Foundation
import ReceiptQueue
import ReceiptQueueTesting
import Testing
import X509

/// The worker verifies each receipt locally before Apple (`--receipt-check local`): garbage,
/// forgeries and other apps' receipts are rejected with no request to Apple; a receipt it cannot
/// confirm (a root it does not know) still goes to Apple; a genuine one is granted through the
/// fake's verifyReceipt, which reads the PKCS #7 receipts it minted.
@Suite("Local receipt verification in the worker, with the fake's real PKCS#7 receipts")
struct LocalReceiptTests {
    static let fast = FakeAppStoreConfiguration(latency: FakeDurationRange(lower: .milliseconds(20), upper: .milliseconds(60)))

    /// Trusts the fake's test CA, as `--signed-data-root` does for the product.
    static func verifier(_ e2e: EndToEnd) throws -> AppReceiptVerifier {
        try AppReceiptVerifier(configuration: .init(trustedRoots: [e2e.fake.serverAPI.signer.pki.root], bundleIds: [bundleID],
                                                    environments: [.production, .sandbox]))
    }

    static func receipt(_ id: String, bundle: String = bundleID) -> FakeReceipt {
        FakeReceipt(bundleID: bundle, inApp: [FakeTransaction(transactionID: id, productID: "coins100")])
    }

    @Test func garbageForgeriesAndOtherAppsReceiptsAreRejectedWithoutOneRequestToApple() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"), localReceipts: try Self.verifier(e2e))
        let attacker = try TestPKI()   // Apple's names, its own keys
        var tampered = Array(Data(base64Encoded: try e2e.fake.serverAPI.mintReceipt(Self.receipt("t-tampered")))!)
        if let at = tampered.firstRange(of: Array("coins100".utf8))?.lowerBound { tampered[at] = UInt8(ascii: "C") }
        let garbage: [(String, String)] = [
            ("t-text", Data("not a receipt".utf8).base64EncodedString()),
            ("t-json", Self.receipt("t-json").base64()),                          // the fake's JSON format is no app receipt
            ("t-other-app", try e2e.fake.serverAPI.mintReceipt(Self.receipt("t-other-app", bundle: "com.other.app"))),
            ("t-forged", try Self.receipt("t-forged").pkcs7(signer: attacker.receiptSigner)),
            ("t-tampered", Data(tampered).base64EncodedString()),
        ]
        let good = try e2e.fake.serverAPI.mintReceipt(Self.receipt("t-good"))
        // Six of each: more than a breaker admits in slow start before Apple answers (20), so the
        // local rejections must give their admissions back or the genuine receipt would never go.
        let garbageJobs = (0..<6).flatMap { n in garbage.map { NewJob(receiptData: $0.1, transactionID: "\($0.0)-\(n)", userID: "u") } }
        _ = try await e2e.queue.enqueue(garbageJobs)
        _ = try await e2e.queue.enqueue([NewJob(receiptData: good, transactionID: "t-good", userID: "u")])
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        #expect(try await e2e.states() == ["granted": 1, "rejected": 30])
        #expect(e2e.fake.stats.snapshot().requests == 1, "only the genuine receipt reached Apple")
        let reasons = try await e2e.pool.query("SELECT transaction_id, outcome_reason FROM receiptq.jobs WHERE state = 'rejected'")
        for row in reasons {
            #expect(try row.decode("outcome_reason", as: String.self).contains("checked locally"))
        }
        try await worker.stop()
        await e2e.shutdown()
    }

    @Test func aReceiptUnderARootWeDoNotKnowIsAskedOfAppleNotRejectedHere() async throws {
        let e2e = try await EndToEnd.make(fake: Self.fast)
        let worker = e2e.startWorker(e2e.workerConfiguration(name: "w"), localReceipts: try Self.verifier(e2e))
        var options = TestPKI.Options()
        options.names = TestPKINames(root: try DistinguishedName { CommonName("Apple Root CA - G9"); OrganizationName("Apple Inc.") },
                                     intermediate: TestPKINames.appleLike.intermediate, leaf: TestPKINames.appleLike.leaf)
        let stranger = try TestPKI(options)
        let id = try await e2e.queue.enqueue([NewJob(receiptData: try Self.receipt("t-new-root").pkcs7(signer: stranger.receiptSigner),
                                                     transactionID: "t-new-root", userID: "u")])[0].id
        #expect(try await e2e.waitUntilDrained(timeout: .seconds(30)))
        #expect(e2e.fake.stats.snapshot().requests == 1, "our gap: Apple decides")
        let job = try #require(try await e2e.queue.job(id: id))
        #expect(job.state == .rejected)   // the fake, as Apple, says 21003: not its signature
        #expect(job.outcomeReason?.contains("21003") == true)
        try await worker.stop()
        await e2e.shutdown()
    }
}
