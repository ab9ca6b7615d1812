/// What Apple's answer means for a job — the single decision the worker acts on.
/// Made by `ReceiptClassification.classify(httpStatus:body:)`, a pure function.
public enum ReceiptClassification: Sendable {
    /// Status 0 or 21006: the receipt is genuine; match its transactions next. Boxed, as in
    /// `VerificationOutcome`.
    indirect case valid(VerifyReceiptResponse)
    /// 21007 or 21008: ask the other environment now (once per verification).
    case switchEnvironment(to: VerifyReceiptEnvironment)
    /// Apple-side trouble or an answer we cannot read: requeue with backoff.
    case retryLater(RetryReason)
    /// Apple says the receipt is not valid: the job ends `rejected`.
    case reject(RejectReason)
    /// Our configuration is wrong (shared secret): not the receipt's fault; stop claiming, alert.
    case configurationError(ConfigurationProblem)
}

/// Why an answer is worth retrying. `doubtsTheReceipt` reasons may also mean the receipt itself is
/// bad, so the worker retries them only over a window (hours) before giving up into `failed` —
/// never `rejected`; the rest are retried with backoff until the job's overall budget runs out.
/// `shouldAlert` reasons point at something a person must look at.
public enum RetryReason: Sendable, Equatable {
    /// 21002: malformed data or a temporary issue (Apple cannot tell us which).
    case malformedOrTemporary
    /// 21000: Apple could not read our request — our bug, not the receipt's.
    case unreadableRequest
    /// 21005, 21009, 21100–21199 with Apple's `is_retryable` hint (`nil` when Apple gave none;
    /// Apple defines the hint for 21100–21199 only).
    case appleServerError(status: Int, isRetryable: Bool?)
    /// A non-200 HTTP status: 5xx, 429, or anything else unexpected.
    case httpStatus(Int)
    /// HTTP 200 whose body is not JSON with a status (an HTML maintenance page, a truncated body).
    case unreadableResponse
    /// A status code not in Apple's table. Never a reason to reject a paid receipt.
    case unknownStatus(Int)
    /// 21007 after 21008 or the mirror: the environments disagree.
    case environmentLoop
    /// No response at all (connection refused, reset, a TLS handshake Apple broke off); carries
    /// the error's text.
    case network(String)
    /// Apple's certificate did not verify: a CA bundle or clock problem on our side far more
    /// often than an Apple outage. Retried with backoff, alerted, and never counted against the
    /// circuit breaker (pausing the fleet would hide it behind "Apple is down").
    case tls(String)

    /// Answers that may mean the receipt itself is bad: 21002, and a 21100–21199 error Apple
    /// marked not retryable (`is_retryable` is defined for that range only, so it is ignored for
    /// 21005 and 21009).
    public var doubtsTheReceipt: Bool {
        switch self {
        case .malformedOrTemporary: true
        case .appleServerError(let status, let isRetryable): (21_100...21_199).contains(status) && isRetryable == false
        default: false
        }
    }

    /// Reasons that mean our side or Apple's protocol changed: page someone.
    public var shouldAlert: Bool {
        switch self {
        case .unreadableRequest, .unknownStatus, .environmentLoop, .tls: true
        case .httpStatus(let status): !(status == 429 || (500...599).contains(status))
        default: false
        }
    }
}

/// Why Apple declared a receipt invalid.
public enum RejectReason: Sendable, Equatable {
    /// 21003: the receipt could not be authenticated.
    case notAuthentic
    /// 21010: the account cannot be found or was deleted.
    case accountNotFound
}

/// Configuration errors on our side.
public enum ConfigurationProblem: Sendable, Equatable {
    /// 21004: the shared secret we send does not match the app's.
    case sharedSecretMismatch
}
