/// The end of one verification attempt, as the worker maps it to a job state:
/// `valid` → match and grant; `retryLater` → `queued` with backoff; `reject` → `rejected`;
/// `configurationError` → stop claiming and alert; `timedOut` → `timed_out`.
public enum VerificationOutcome: Sendable {
    /// Boxed (`indirect`): Apple's decoded answer is a few hundred bytes, and every async frame
    /// that holds an outcome across an await (one per verification in flight) paid for it inline.
    indirect case valid(VerifyReceiptResponse)
    case retryLater(RetryReason)
    case reject(RejectReason)
    case configurationError(ConfigurationProblem)
    /// Apple did not answer within the request timeout.
    case timedOut
}

/// A verification's outcome and what it cost.
public struct VerificationResult: Sendable {
    public var outcome: VerificationOutcome
    /// The environment whose answer decided the outcome (the last one asked).
    public var environment: VerifyReceiptEnvironment
    /// Time spent waiting on HTTP, all calls of this verification together.
    public var latency: Duration
    /// HTTP calls made: 1, or 2 after an environment switch.
    public var calls: Int

    public init(outcome: VerificationOutcome, environment: VerifyReceiptEnvironment, latency: Duration, calls: Int) {
        self.outcome = outcome
        self.environment = environment
        self.latency = latency
        self.calls = calls
    }
}
