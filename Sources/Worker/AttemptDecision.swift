import AppStore
import Foundation
import ReceiptQueue

/// Maps one verification to what the writer records — the single place where Apple's outcomes
/// become job outcomes. Pure, so every branch is unit-tested.
///
/// | verification | recorded |
/// |---|---|
/// | valid | grant (ledger decides granted / already granted) or rejected by `ReceiptMatch` |
/// | reject (21003, 21010) | rejected |
/// | retryLater, bounded (21002; retryable=false) | retry; rejected at the `boundedAttempts`-th such answer |
/// | retryLater, other | retry with backoff (the lifecycle gives up once the budget is spent) |
/// | timedOut | timed_out (the scheduler requeues it) |
/// | configurationError (21004) | released: not the receipt's fault |
public struct AttemptDecision: Sendable {
    public var rules: ReceiptMatch.Rules
    public var retryPolicy: RetryPolicy
    /// Attempts for answers that may mean the receipt itself is bad (21002). Default 3.
    public var boundedAttempts: Int

    public init(rules: ReceiptMatch.Rules, retryPolicy: RetryPolicy = RetryPolicy(), boundedAttempts: Int = 3) {
        self.rules = rules
        self.retryPolicy = retryPolicy
        self.boundedAttempts = boundedAttempts
    }

    public func decide<R: RandomNumberGenerator>(_ result: VerificationResult, lease: JobLease, now: Date,
                                                 using random: inout R) -> FinishedAttempt {
        var status: Int?
        var bounded = false
        let decision: FinishedAttempt.Decision
        switch result.outcome {
        case .valid(let response):
            status = response.status
            switch ReceiptMatch.decide(response, answeredBy: result.environment, lease: lease, rules: rules) {
            case .grant(let candidate): decision = .grant(candidate)
            case .reject(let reason): decision = .result(.rejected(reason: reason))
            }
        case .reject(let reason):
            status = reason == .notAuthentic ? 21003 : 21010
            decision = .result(.rejected(reason: reason == .notAuthentic
                ? "Apple: receipt is not authentic (21003)" : "Apple: account not found (21010)"))
        case .retryLater(let reason):
            status = reason.appleStatus
            bounded = reason.isBounded
            // Only these answers count toward the bound: attempts lost to an outage do not.
            if bounded && lease.boundedAnswers + 1 >= boundedAttempts {
                decision = .result(.rejected(reason: "Apple answered \(reason.summary) \(lease.boundedAnswers + 1) times"))
            } else {
                decision = .result(.retry(delayMilliseconds: delay(lease, now, &random), error: reason.summary))
            }
        case .timedOut:
            decision = .result(.timedOut(delayMilliseconds: delay(lease, now, &random), error: "Apple did not answer in time"))
        case .configurationError:
            status = 21004
            decision = .result(.release)
        }
        return FinishedAttempt(lease: lease, decision: decision, appleStatus: status, appleEnvironment: result.environment.rawValue,
                               boundedAnswer: bounded)
    }

    private func delay<R: RandomNumberGenerator>(_ lease: JobLease, _ now: Date, _ random: inout R) -> Int64 {
        retryPolicy.delayMilliseconds(afterAttempt: lease.attempt, createdAt: lease.budgetStart, now: now, using: &random)
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
        }
    }

    /// Apple-side trouble that counts against the circuit breaker.
    var isAppleTrouble: Bool {
        switch self {
        case .appleServerError, .httpStatus, .unreadableResponse, .network: true
        case .malformedOrTemporary, .unreadableRequest, .unknownStatus, .environmentLoop: false
        }
    }
}
