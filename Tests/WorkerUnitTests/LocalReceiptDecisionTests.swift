import AppleSignedData
import AppStore
import Foundation
import ReceiptQueue
import Testing
import Worker

/// Where the worker draws the line between rejecting a receipt without Apple and asking Apple
/// (`LocalReceiptDecision`; docs/local-receipts.md, "Where the line is"): only proof that the bytes are not
/// Apple's receipt for our apps rejects; our own gaps go to Apple; a locally valid receipt's
/// 21002 is Apple's trouble.
@Suite("Local receipt verification: reject without Apple only on proof")
struct LocalReceiptDecisionTests {
    let contents = AppReceiptContents(receiptType: "Production", bundleId: "com.example.app",
                                      purchases: [AppReceiptPurchase(productId: "coins100", transactionId: "1000")])

    @Test(arguments: [
        AppReceiptVerificationError.Reason.notBase64, .malformedEncoding, .truncated, .notSignedData, .unexpectedContentType,
        .missingContent, .missingSigner, .digestMismatch, .badSignature, .chainNotTrusted, .intermediateOIDMissing,
        .leafOIDMissing, .bundleIdMismatch,
    ])
    func proofRejectsWithoutAskingApple(reason: AppReceiptVerificationError.Reason) {
        for verifier in [LocalReceiptDecision.Verifier.verifyReceipt, .serverAPI] {
            guard case .reject(let text) = LocalReceiptDecision.decide(.refused(reason), transactionID: "1000", verifier: verifier) else {
                Issue.record("\(reason) should be rejected locally"); continue
            }
            #expect(text.contains(AppReceiptVerificationError(reason).reasonSummary))
        }
    }

    @Test(arguments: [
        AppReceiptVerificationError.Reason.tooLarge, .trailingBytes, .nestingTooDeep, .missingCertificates, .unparsableCertificate,
        .unsupportedAlgorithm, .malformedPayload, .unparsableAttribute, .unknownRoot, .certificateExpired, .certificateNotYetValid,
        .environmentMismatch,
    ])
    func ourPossibleGapsGoToApple(reason: AppReceiptVerificationError.Reason) {
        #expect(LocalReceiptDecision.decide(.refused(reason), transactionID: "1000", verifier: .verifyReceipt) == .askApple(locallyValid: false))
        // Never a lookup of the client's claim on the word of a receipt that proved nothing.
        #expect(LocalReceiptDecision.decide(.refused(reason), transactionID: "1000", verifier: .serverAPI) == .askApple(locallyValid: false))
    }

    @Test func everyReasonIsOnOneSideOfTheLine() {
        // A new reason must be placed deliberately: the switch is exhaustive, and this counts both sides.
        let proofs = AppReceiptVerificationError.Reason.allCases.filter(\.provesNotAnAppleReceiptOfOurs)
        #expect(proofs.count == 13)
        #expect(AppReceiptVerificationError.Reason.allCases.count - proofs.count == 13)
    }

    @Test func aVerifiedReceiptGoesToVerifyReceiptMarkedLocallyValid() {
        #expect(LocalReceiptDecision.decide(.verified(contents), transactionID: "1000", verifier: .verifyReceipt) == .askApple(locallyValid: true))
        // Apple's server copy may hold a renewal the device's receipt does not: verifyReceipt still decides.
        #expect(LocalReceiptDecision.decide(.verified(contents), transactionID: "9999", verifier: .verifyReceipt) == .askApple(locallyValid: true))
    }

    @Test func serverAPILooksUpOnlyATransactionTheReceiptHolds() {
        #expect(LocalReceiptDecision.decide(.verified(contents), transactionID: "1000", verifier: .serverAPI) == .lookUp(transactionID: "1000"))
        guard case .resubmit(let reason) = LocalReceiptDecision.decide(.verified(contents), transactionID: "9999", verifier: .serverAPI) else {
            Issue.record("a transaction the receipt lacks is a resubmit"); return
        }
        #expect(reason.contains("9999"))
    }

    @Test func withTheCheckOffEveryReceiptGoesToApple() {
        #expect(LocalReceiptDecision.decide(.notChecked, transactionID: "1000", verifier: .verifyReceipt) == .askApple(locallyValid: false))
    }

    @Test func a21002ForALocallyValidReceiptIsRetriedPastTheDoubtWindowNeverBounded() {
        let decision = AttemptDecision(rules: .init(bundleIDs: ["com.example.app"]))
        let enqueued = Date().addingTimeInterval(-30 * 3600)   // past the 24 h doubt window
        var random = Fixed()
        let result = VerificationResult(outcome: .retryLater(.malformedOrTemporary), environment: .production, latency: .seconds(4), calls: 1)
        let verified = decision.decide(result, lease: lease(attempt: 60, createdAt: enqueued), now: Date(), receiptVerifiedLocally: true, using: &random)
        guard case .result(.retry(_, let error)) = verified.decision else {
            Issue.record("21002 on a locally valid receipt must be retried, got \(verified.decision)"); return
        }
        #expect(error.contains("Apple's trouble"))
        // Not verified here, the same answer doubts the receipt: the lifecycle gives it up after 24 h.
        let unverified = decision.decide(result, lease: lease(attempt: 60, createdAt: enqueued), now: Date(), using: &random)
        guard case .result(.doubted(.receipt, _, _)) = unverified.decision else {
            Issue.record("unverified 21002 is a doubted retry, got \(unverified.decision)"); return
        }
        let facts = JobLifecycle.Facts(attempts: 60, createdAt: enqueued)
        #expect(JobLifecycle().next(.verifying, on: .complete(.receiptDoubted), facts: facts, now: Date()) == .failed)
        #expect(JobLifecycle().next(.verifying, on: .complete(.retry), facts: facts, now: Date()) == .queued)
    }

    @Test func serverAPIOutcomes() {
        var random = Fixed()
        let decision = TransactionDecision()
        let refused = decision.decide(.receiptRefused(reason: "not an app receipt"), lease: lease(), now: Date(), using: &random)
        guard case .result(.rejected) = refused.decision else { Issue.record("refused receipt is rejected"); return }
        let missing = decision.decide(.notInReceipt(reason: "not yet"), lease: lease(), now: Date(), using: &random)
        guard case .result(.resubmit) = missing.decision else { Issue.record("missing transaction is resubmit"); return }
        #expect(!TransactionDecision.reachedApple(.receiptRefused(reason: "x")) && !TransactionDecision.reachedApple(.notInReceipt(reason: "x")))
        #expect(TransactionDecision.reachedApple(.notFoundAnywhere))
    }
}
