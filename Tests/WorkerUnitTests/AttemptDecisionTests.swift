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

func purchase(_ transactionID: String, product: String = "coins100", original: String? = nil, cancelled: Bool = false,
              quantity: String = "1", extra: [String: Any] = [:]) -> [String: Any] {
    var object: [String: Any] = ["transaction_id": transactionID, "original_transaction_id": original ?? transactionID,
                                 "product_id": product, "quantity": quantity, "purchase_date_ms": "1700000000000"]
    if cancelled { object["cancellation_date_ms"] = "1700000100000" }
    return object.merging(extra) { $1 }
}

func lease(transactionID: String = "1000", product: String? = "coins100", attempt: Int = 1, createdAt: Date = Date(),
           boundedAnswers: Int = 0) -> JobLease {
    JobLease(id: 1, attempt: attempt, receiptData: "x", transactionID: transactionID, userID: "u1", productID: product,
             orderID: nil, createdAt: createdAt, lockedUntil: Date().addingTimeInterval(60), boundedAnswers: boundedAnswers)
}

struct Fixed: RandomNumberGenerator {
    mutating func next() -> UInt64 { 0x5555_5555_5555_5555 }
}

/// The verdict policy, row by row (DESIGN's Verdicts; docs/verdicts.md): what
/// each answer from Apple makes of a job. `rejected` (the app's "not paid") only when Apple
/// says so; every other doubt is retried, or given up into `failed` — never `rejected`.
@Suite("Verdict policy: Apple's answer → what is recorded")
struct AttemptDecisionTests {
    let decision = AttemptDecision(rules: .init(bundleIDs: ["com.example.app"]))

    func decide(_ outcome: VerificationOutcome, environment: VerifyReceiptEnvironment = .production, lease: JobLease = lease(),
                now: Date = Date()) -> FinishedAttempt.Decision {
        attempt(outcome, environment: environment, lease: lease, now: now).decision
    }

    func attempt(_ outcome: VerificationOutcome, environment: VerifyReceiptEnvironment = .production, lease: JobLease = lease(),
                 now: Date = Date()) -> FinishedAttempt {
        var random = Fixed()
        return decision.decide(VerificationResult(outcome: outcome, environment: environment, latency: .seconds(4), calls: 1),
                               lease: lease, now: now, using: &random)
    }

    func rejection(_ result: FinishedAttempt.Decision) -> String? {
        if case .result(.rejected(let reason)) = result { return reason }
        return nil
    }

    func candidate(_ result: FinishedAttempt.Decision) -> GrantCandidate? {
        if case .grant(let candidate) = result { return candidate }
        return nil
    }

    // MARK: Apple verified the receipt (0, 21006)

    @Test func theTransactionInTheReceiptIsGrantedAsAppleVerifiedIt() throws {
        let response = try appleResponse(inApp: [purchase("999"), purchase("1000", original: "900", quantity: "3")])
        let granted = try #require(candidate(decide(.valid(response))))
        #expect(granted.transactionID == "1000")
        #expect(granted.originalTransactionID == "900")
        #expect(granted.productID == "coins100")
        #expect(granted.quantity == 3)
        #expect(granted.environment == "Production")
        #expect(granted.ownershipType == "PURCHASED")
        #expect(granted.purchaseDateMs == 1_700_000_000_000)
    }

    @Test func aClaimedProductThatDiffersIsGrantedAsAppleVerifiedItNeverRejected() throws {
        // The ledger flags the claim (grants.claimed_product_id); the user paid for what Apple says.
        let granted = try #require(candidate(decide(.valid(try appleResponse(inApp: [purchase("1000", product: "coins1")])),
                                                    lease: lease(product: "coins100"))))
        #expect(granted.productID == "coins1")
    }

    @Test func theTransactionOnlyInApplesServerCopyIsGranted() throws {
        let response = try appleResponse(inApp: [purchase("1")], latest: [purchase("1000")])
        #expect(candidate(decide(.valid(response))) != nil)
    }

    @Test func theTransactionNotInTheReceiptYetIsResubmitNotRejected() throws {
        guard case .result(.resubmit(let reason)) = decide(.valid(try appleResponse(inApp: [purchase("1")]))) else {
            Issue.record("expected resubmit"); return
        }
        #expect(reason.contains("refresh the receipt"))
    }

    @Test func aReceiptWithNoPurchasesAtAllIsResubmitNotRejected() throws {
        guard case .result(.resubmit) = decide(.valid(try appleResponse(inApp: []))) else { Issue.record("expected resubmit"); return }
    }

    @Test func aReceiptOfAnotherAppIsRejected() throws {
        let reason = rejection(decide(.valid(try appleResponse(bundleID: "com.thief.app", inApp: [purchase("1000")]))))
        #expect(reason?.contains("another app") == true)
    }

    @Test func anAnswerWithoutABundleIdIsRetriedNeverTakenForAnotherApps() throws {
        guard case .result(.retry) = decide(.valid(try appleResponse(bundleID: "", inApp: [purchase("1000")]))) else {
            Issue.record("expected a retry"); return
        }
    }

    @Test func aRefundInTheDevicesCopyIsRejected() throws {
        #expect(rejection(decide(.valid(try appleResponse(inApp: [purchase("1000", cancelled: true)]))))?.contains("refunded") == true)
    }

    @Test func aRefundOnlyApplesServerCopyKnowsIsRejectedToo() throws {
        // The device's receipt predates the refund: in_app is clean, latest_receipt_info is not.
        let response = try appleResponse(inApp: [purchase("1000")], latest: [purchase("1000", cancelled: true)])
        #expect(rejection(decide(.valid(response)))?.contains("refunded") == true)
    }

    @Test func aFamilySharedPurchaseIsGrantedAsFamilyShared() throws {
        let response = try appleResponse(inApp: [purchase("1000", extra: ["in_app_ownership_type": "FAMILY_SHARED"])])
        #expect(try #require(candidate(decide(.valid(response)))).ownershipType == "FAMILY_SHARED")
    }

    @Test func aSubscriptionPeriodCarriesItsLineItemAndExpiry() throws {
        let response = try appleResponse(inApp: [], latest: [purchase("1002", original: "1000", extra: [
            "web_order_line_item_id": "5002", "expires_date_ms": "1702592000000"])])
        let granted = try #require(candidate(decide(.valid(response), lease: lease(transactionID: "1002"))))
        #expect(granted.webOrderLineItemID == "5002")
        #expect(granted.expiresDateMs == 1_702_592_000_000)
    }

    @Test func sandboxIsGrantedAsSandboxByDefaultAndRejectedWhenRefused() throws {
        let response = try appleResponse(inApp: [purchase("1000")])
        #expect(try #require(candidate(decide(.valid(response), environment: .sandbox))).environment == "Sandbox")
        let strict = AttemptDecision(rules: .init(bundleIDs: ["com.example.app"], acceptSandbox: false))
        var random = Fixed()
        let refused = strict.decide(VerificationResult(outcome: .valid(response), environment: .sandbox, latency: .zero, calls: 2),
                                    lease: lease(), now: Date(), using: &random)
        #expect(rejection(refused.decision)?.contains("sandbox") == true)
    }

    // MARK: Apple says invalid

    @Test func appleSaysNotAuthenticOrNoAccountIsRejected() {
        #expect(rejection(decide(.reject(.notAuthentic)))?.contains("21003") == true)
        #expect(rejection(decide(.reject(.accountNotFound)))?.contains("21010") == true)
    }

    // MARK: Doubts: retried, never rejected

    /// Where the lifecycle leaves the job this attempt was decided for (`RecordOutcomes` asks the same).
    func recorded(_ attempt: FinishedAttempt, now: Date, lifecycle: JobLifecycle = JobLifecycle()) -> JobState? {
        guard case .result(let result) = attempt.decision else { return nil }
        let end: AttemptEnd = switch result {
        case .retry: .retry
        case .doubted(let doubt, _, _): doubt == .receipt ? .receiptDoubted : .secretRefused
        case .failed: .failed
        case .rejected: .rejected
        case .resubmit: .resubmit
        case .timedOut: .timedOut
        case .release: .retry
        }
        let facts = JobLifecycle.Facts(attempts: attempt.lease.attempt, createdAt: attempt.lease.budgetStart,
                                       boundedAnswers: attempt.lease.boundedAnswers)
        return lifecycle.next(.verifying, on: .complete(end), facts: facts, now: now)
    }

    /// One outcome per answer: a 21002 is always a doubted retry; the lifecycle alone gives it up,
    /// after its doubt window (24 h), into failed — never rejected.
    @Test func a21002IsADoubtedRetryThatTheLifecycleGivesUpAfterHoursNeverRejected() {
        let enqueued = Date(timeIntervalSince1970: 1_700_000_000)
        for hours in [0.0, 1, 6, 23.9, 24] {
            let now = enqueued.addingTimeInterval(hours * 3600)
            let answer = attempt(.retryLater(.malformedOrTemporary), lease: lease(attempt: 30, createdAt: enqueued), now: now)
            guard case .result(.doubted(.receipt, _, let error)) = answer.decision else {
                Issue.record("21002 after \(hours) h should be a doubted retry: \(answer.decision)"); return
            }
            #expect(error.contains("21002"))
            #expect(recorded(answer, now: now) == (hours < 24 ? .queued : .failed), "after \(hours) h")
        }
    }

    @Test func a211xxMarkedNotRetryableIsADoubtToo() {
        let enqueued = Date(timeIntervalSince1970: 1_700_000_000)
        let notRetryable = RetryReason.appleServerError(status: 21150, isRetryable: false)
        for hours in [0.0, 25] {
            let now = enqueued.addingTimeInterval(hours * 3600)
            let answer = attempt(.retryLater(notRetryable), lease: lease(createdAt: enqueued), now: now)
            guard case .result(.doubted(.receipt, _, _)) = answer.decision else { Issue.record("expected a doubted retry"); return }
            #expect(recorded(answer, now: now) == (hours < 24 ? .queued : .failed))
        }
    }

    @Test func appleTroubleNeverRejectsAPaidReceiptOnlyRetries() {
        let troubles: [RetryReason] = [.httpStatus(503), .httpStatus(429), .unreadableResponse, .network("refused"),
                                       .appleServerError(status: 21005, isRetryable: false), .unknownStatus(21999),
                                       .appleServerError(status: 21199, isRetryable: true), .unreadableRequest,
                                       .tls("certificate verify failed")]
        let old = lease(attempt: 40, createdAt: Date().addingTimeInterval(-48 * 3600))
        for trouble in troubles {
            guard case .result(.retry(let delay, _)) = decide(.retryLater(trouble), lease: old) else {
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

    /// While the breaker is closed a transient answer is retried within the quick delay for a
    /// job's first five retries; while Apple is in trouble, and for our own secret (21004), the
    /// delay grows with the attempt as ever.
    @Test func aTransientAnswerWhileAppleIsHealthyIsRetriedSoonOurSecretNever() {
        let third = lease(attempt: 3)
        func delay(_ outcome: VerificationOutcome, healthy: Bool) -> Int64? {
            var random = Fixed()
            let answer = decision.decide(VerificationResult(outcome: outcome, environment: .production, latency: .seconds(4), calls: 1),
                                         lease: third, now: Date(), appleHealthy: healthy, using: &random)
            switch answer.decision {
            case .result(.retry(let delay, _)), .result(.doubted(_, let delay, _)), .result(.timedOut(let delay, _)): return delay
            default: return nil
            }
        }
        for outcome in [VerificationOutcome.retryLater(.httpStatus(503)), .retryLater(.appleServerError(status: 21005, isRetryable: true)), .timedOut] {
            #expect(delay(outcome, healthy: true).map { (250...500).contains($0) } == true, "\(outcome) while healthy")
            #expect(delay(outcome, healthy: false).map { (4000...8000).contains($0) } == true, "\(outcome) while in trouble")
        }
        #expect(delay(.configurationError(.sharedSecretMismatch), healthy: true).map { (4000...8000).contains($0) } == true)
    }

    @Test func timeoutBecomesTimedOutForTheScheduler() {
        guard case .result(.timedOut) = decide(.timedOut) else { Issue.record("expected timed_out"); return }
    }

    // MARK: 21004: our shared secret

    @Test func a21004IsADoubtedRetryCountedAndTheLifecycleGivesItUpAfterAFew() {
        let now = Date()
        for earlier in 0...4 {
            let answer = attempt(.configurationError(.sharedSecretMismatch), lease: lease(boundedAnswers: earlier), now: now)
            guard case .result(.doubted(.sharedSecret, _, _)) = answer.decision else { Issue.record("expected a doubted retry"); return }
            #expect(answer.boundedAnswer)
            #expect(answer.appleStatus == 21004)
            #expect(recorded(answer, now: now) == (earlier < 4 ? .queued : .failed), "after \(earlier) earlier 21004s")
        }
    }
}
