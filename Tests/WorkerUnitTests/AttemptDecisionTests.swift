import AppStore
import Foundation
import ReceiptQueue
import Testing
import Worker

/// Apple's answer as JSON, decoded the way the client decodes it.
func appleResponse(status: Int = 0, bundleID: String = "com.example.app", inApp: [[String: Any]], latest: [[String: Any]] = []) throws -> VerifyReceiptResponse {
    let object: [String: Any] = ["status": status, "environment": "Production",
                                 "receipt": ["bundle_id": bundleID, "in_app": inApp], "latest_receipt_info": latest]
    return try JSONDecoder().decode(VerifyReceiptResponse.self, from: JSONSerialization.data(withJSONObject: object))
}

func purchase(_ transactionID: String, product: String = "coins100", original: String? = nil, cancelled: Bool = false) -> [String: Any] {
    var object: [String: Any] = ["transaction_id": transactionID, "original_transaction_id": original ?? transactionID,
                                 "product_id": product, "quantity": "1", "purchase_date_ms": "1700000000000"]
    if cancelled { object["cancellation_date_ms"] = "1700000100000" }
    return object
}

func lease(transactionID: String = "1000", product: String? = "coins100", attempt: Int = 1, createdAt: Date = Date(),
           boundedAnswers: Int = 0) -> JobLease {
    JobLease(id: 1, attempt: attempt, receiptData: "x", transactionID: transactionID, userID: "u1", productID: product,
             orderID: nil, createdAt: createdAt, lockedUntil: Date().addingTimeInterval(60), boundedAnswers: boundedAnswers)
}

struct Fixed: RandomNumberGenerator {
    mutating func next() -> UInt64 { 0x5555_5555_5555_5555 }
}

@Suite("Attempt decision: Apple's answer → what is recorded")
struct AttemptDecisionTests {
    let decision = AttemptDecision(rules: .init(bundleIDs: ["com.example.app"]))

    func decide(_ outcome: VerificationOutcome, environment: VerifyReceiptEnvironment = .production, lease: JobLease = lease()) -> FinishedAttempt.Decision {
        var random = Fixed()
        return decision.decide(VerificationResult(outcome: outcome, environment: environment, latency: .seconds(4), calls: 1),
                               lease: lease, now: Date(), using: &random).decision
    }

    func rejection(_ result: FinishedAttempt.Decision) -> String? {
        if case .result(.rejected(let reason)) = result { return reason }
        return nil
    }

    @Test func validReceiptWithTheTransactionBecomesAGrantCandidate() throws {
        let response = try appleResponse(inApp: [purchase("999"), purchase("1000", original: "900")])
        guard case .grant(let candidate) = decide(.valid(response)) else { Issue.record("expected a grant"); return }
        #expect(candidate.transactionID == "1000")
        #expect(candidate.originalTransactionID == "900")
        #expect(candidate.productID == "coins100")
        #expect(candidate.environment == "Production")
        #expect(candidate.purchaseDateMs == 1_700_000_000_000)
    }

    @Test func transactionFoundOnlyInLatestReceiptInfoIsGranted() throws {
        let response = try appleResponse(inApp: [purchase("1")], latest: [purchase("1000")])
        guard case .grant = decide(.valid(response)) else { Issue.record("expected a grant"); return }
    }

    @Test func transactionMissingFromTheReceiptIsRejected() throws {
        #expect(rejection(decide(.valid(try appleResponse(inApp: [purchase("1")])))) == "transaction not found in receipt")
    }

    @Test func genuineReceiptWithEmptyInAppIsRejectedAsAForgeryPattern() throws {
        #expect(rejection(decide(.valid(try appleResponse(inApp: [])))) == "receipt contains no in-app purchases")
    }

    @Test func receiptOfAnotherAppIsRejected() throws {
        let reason = rejection(decide(.valid(try appleResponse(bundleID: "com.thief.app", inApp: [purchase("1000")]))))
        #expect(reason?.contains("another app") == true)
    }

    @Test func productOtherThanTheClientClaimedIsRejected() throws {
        let reason = rejection(decide(.valid(try appleResponse(inApp: [purchase("1000", product: "coins1")]))))
        #expect(reason?.contains("product does not match") == true)
    }

    @Test func refundedPurchaseIsRejected() throws {
        let reason = rejection(decide(.valid(try appleResponse(inApp: [purchase("1000", cancelled: true)]))))
        #expect(reason?.contains("refunded") == true)
    }

    @Test func sandboxReceiptIsGrantedAsSandboxByDefaultAndRejectedWhenRefused() throws {
        let response = try appleResponse(inApp: [purchase("1000")])
        guard case .grant(let candidate) = decide(.valid(response), environment: .sandbox) else { Issue.record("expected a grant"); return }
        #expect(candidate.environment == "Sandbox")
        let strict = AttemptDecision(rules: .init(bundleIDs: ["com.example.app"], acceptSandbox: false))
        var random = Fixed()
        let refused = strict.decide(VerificationResult(outcome: .valid(response), environment: .sandbox, latency: .zero, calls: 2),
                                    lease: lease(), now: Date(), using: &random)
        #expect(rejection(refused.decision) == "sandbox receipts are not accepted")
    }

    @Test func appleSaysNotAuthenticIsRejected() {
        #expect(rejection(decide(.reject(.notAuthentic)))?.contains("21003") == true)
        #expect(rejection(decide(.reject(.accountNotFound)))?.contains("21010") == true)
    }

    @Test func malformed21002IsRetriedAFewTimesThenRejected() {
        guard case .result(.retry) = decide(.retryLater(.malformedOrTemporary), lease: lease(attempt: 2, boundedAnswers: 1)) else {
            Issue.record("the second 21002 should retry"); return
        }
        #expect(rejection(decide(.retryLater(.malformedOrTemporary), lease: lease(attempt: 3, boundedAnswers: 2)))?.contains("21002") == true)
    }

    @Test func attemptsLostToAnOutageDoNotUseUpThe21002Budget() {
        // Nine attempts met refused connections and HTML pages; this is the first 21002: retry, do not reject a paid receipt.
        var random = Fixed()
        let attempt = decision.decide(VerificationResult(outcome: .retryLater(.malformedOrTemporary), environment: .production, latency: .zero, calls: 1),
                                      lease: lease(attempt: 10, boundedAnswers: 0), now: Date(), using: &random)
        guard case .result(.retry) = attempt.decision else { Issue.record("expected retry, got \(attempt.decision)"); return }
        #expect(attempt.boundedAnswer)
    }

    @Test func appleTroubleNeverRejectsAPaidReceiptOnlyRetries() {
        let troubles: [RetryReason] = [.httpStatus(503), .httpStatus(429), .unreadableResponse, .network("refused"),
                                       .appleServerError(status: 21005, isRetryable: nil), .unknownStatus(21999),
                                       .appleServerError(status: 21199, isRetryable: true), .unreadableRequest]
        for trouble in troubles {
            guard case .result(.retry(let delay, _)) = decide(.retryLater(trouble), lease: lease(attempt: 40)) else {
                Issue.record("\(trouble) should retry"); continue
            }
            #expect(delay > 0)
        }
    }

    @Test func appleTroublePastTheDeadlineIsARetryAtOnceNeverARejection() {
        // The lifecycle turns it into `failed` when it is recorded (JobLifecycleTests).
        let old = lease(attempt: 5, createdAt: Date().addingTimeInterval(-73 * 3600))
        guard case .result(.retry(let delay, let error)) = decide(.retryLater(.httpStatus(503)), lease: old) else {
            Issue.record("expected a retry"); return
        }
        #expect(delay == 0)
        #expect(error.contains("HTTP 503"))
    }

    @Test func timeoutBecomesTimedOutForTheScheduler() {
        guard case .result(.timedOut) = decide(.timedOut) else { Issue.record("expected timed_out"); return }
    }

    @Test func sharedSecretMismatchReleasesTheJobWithoutBlamingTheReceipt() {
        guard case .result(.release) = decide(.configurationError(.sharedSecretMismatch)) else { Issue.record("expected release"); return }
    }
}
