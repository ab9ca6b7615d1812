import AppStore
import Foundation
import ReceiptQueue

/// Maps one verification to what the writer records — the single place where Apple's answers
/// become job outcomes, and the verdict policy's home: a paid purchase is `rejected` only when
/// Apple says it is invalid; every other doubt is retried, and giving up (`failed`: kept,
/// alerting, re-drivable) is the lifecycle's alone (`JobLifecycle`, in the writing transaction).
/// One answer, one outcome. Pure, so every row is unit-tested.
///
/// | verification | recorded |
/// |---|---|
/// | valid (0, 21006) | `ReceiptMatch`: grant (the ledger decides granted / already granted), resubmit, or rejected (another app, refunded); a subscription period's grant carries the receipt's `receipt` facts for the subscription model |
/// | 21003, 21010 | rejected |
/// | 21002; 211xx marked not retryable | `doubted(.receipt)`: retry with backoff; the lifecycle fails it once `doubtWindow` has passed since enqueue |
/// | the same, for a receipt verified locally first (`LocalReceiptDecision`) | Apple's trouble, not the receipt's: retry until the retry budget is spent |
/// | 21004 (our shared secret refused) | `doubted(.sharedSecret)`: retry with backoff; the lifecycle fails it at the `secretMismatchAttempts`-th such answer |
/// | other Apple trouble, unknown answers | retry with backoff until the retry budget is spent (then the lifecycle fails it) |
/// | no answer in time | timed_out (the scheduler requeues it) |
public struct AttemptDecision: Sendable {
    public var rules: ReceiptMatch.Rules
    public var retryPolicy: RetryPolicy

    public init(rules: ReceiptMatch.Rules, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.rules = rules
        self.retryPolicy = retryPolicy
    }

    /// - Parameter receiptVerifiedLocally: the receipt's signature, Apple's chain and bundle id
    ///   verified on this machine, so an answer doubting the receipt (21002) is Apple's trouble.
    /// - Parameter appleHealthy: the worker's breaker for this environment is closed: a transient
    ///   answer is one unlucky request and its first retries come soon (`RetryPolicy.quickRetries`).
    public func decide<R: RandomNumberGenerator>(_ result: VerificationResult, lease: JobLease, now: Date,
                                                 receiptVerifiedLocally: Bool = false, appleHealthy: Bool = false,
                                                 using random: inout R) -> FinishedAttempt {
        let delay = { (random: inout R) in
            retryPolicy.delayMilliseconds(afterAttempt: lease.attempt, createdAt: lease.budgetStart, now: now,
                                          appleHealthy: appleHealthy, using: &random)
        }
        var status: Int?
        var counted = false
        var facts: [SubscriptionFact] = []
        let decision: FinishedAttempt.Decision
        switch result.outcome {
        case .valid(let response):
            status = response.status
            switch ReceiptMatch.decide(response, answeredBy: result.environment, lease: lease, rules: rules) {
            case .grant(let candidate):
                decision = .grant(candidate)
                // Only a subscription period's job reads the receipt's subscriptions: a consumable costs nothing more.
                if candidate.expiresDateMs != nil { facts = SubscriptionFact.receipt(response, environment: result.environment.rawValue) }
            case .reject(let reason): decision = .result(.rejected(reason: reason))
            case .resubmit(let reason): decision = .result(.resubmit(reason: reason))
            case .unreadable(let reason): decision = .result(.retry(delayMilliseconds: delay(&random), error: reason))
            }
        case .reject(let reason):
            status = reason == .notAuthentic ? 21003 : 21010
            decision = .result(.rejected(reason: reason == .notAuthentic
                ? "Apple: receipt is not authentic (21003)" : "Apple: account not found (21010)"))
        case .retryLater(let reason):
            status = reason.appleStatus
            if reason.doubtsTheReceipt && !receiptVerifiedLocally {
                decision = .result(.doubted(.receipt, delayMilliseconds: delay(&random), error: reason.summary))
            } else {
                let error = reason.doubtsTheReceipt && receiptVerifiedLocally
                    ? "\(reason.summary) for a receipt verified locally: Apple's trouble" : reason.summary
                decision = .result(.retry(delayMilliseconds: delay(&random), error: error))
            }
        case .timedOut:
            decision = .result(.timedOut(delayMilliseconds: delay(&random), error: "Apple did not answer in time"))
        case .configurationError:
            status = 21004
            counted = true
            // Our configuration, not Apple's luck: backs off as ever.
            decision = .result(.doubted(.sharedSecret, delayMilliseconds: retryPolicy.delayMilliseconds(
                afterAttempt: lease.attempt, createdAt: lease.budgetStart, now: now, using: &random), error: "21004 (shared secret refused)"))
        }
        return FinishedAttempt(lease: lease, decision: decision, appleStatus: status, appleEnvironment: result.environment.rawValue,
                               boundedAnswer: counted, subscriptionFacts: facts)
    }
}

extension RetryReason {
    /// Apple's status for reasons that carry one.
    var appleStatus: Int? {
        switch self {
        case .malformedOrTemporary: 21002
        case .unreadableRequest: 21000
        case .appleServerError(let status, _), .unknownStatus(let status): status
        default: nil
        }
    }

    /// A short, log-safe description (never contains receipt data).
    var summary: String {
        switch self {
        case .malformedOrTemporary: "21002 (malformed or temporary)"
        case .unreadableRequest: "21000 (could not read our request)"
        case .appleServerError(let status, let retryable): "\(status) (server error\(retryable == false ? ", not retryable" : ""))"
        case .httpStatus(let status): "HTTP \(status)"
        case .unreadableResponse: "a response that is not JSON"
        case .unknownStatus(let status): "unknown status \(status)"
        case .environmentLoop: "21007/21008 loop between environments"
        case .network(let error): "network error: \(error.prefix(200))"
        case .tls(let error): "TLS verification of Apple failed (our CA bundle or clock?): \(error.prefix(200))"
        }
    }

    /// Apple-side trouble that counts against the circuit breaker. 21002 counts: one garbage
    /// receipt among good ones never opens the breaker (it needs a run, or half of the recent
    /// answers), but a 21002 storm is Apple's trouble, and the fleet stops burning retries on it.
    var isAppleTrouble: Bool {
        switch self {
        case .appleServerError, .httpStatus, .unreadableResponse, .network, .malformedOrTemporary: true
        case .unreadableRequest, .unknownStatus, .environmentLoop, .tls: false
        }
    }
}
