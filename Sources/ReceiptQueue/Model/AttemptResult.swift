/// How an attempt ended, as a worker reports it. There is no "granted" here on purpose: a
/// worker hands over a `GrantCandidate`, and only the ledger, inside the completing transaction,
/// decides granted or already granted (invariant 2). Each case maps to an `AttemptEnd` of the
/// lifecycle; `JobLifecycle` turns a retry into `failed` once the budget is spent.
public enum AttemptResult: Sendable, Hashable {
    /// Apple says the purchase is not valid. Terminal.
    case rejected(reason: String)
    /// Apple verified the receipt but it does not hold the transaction yet (the device sent a
    /// receipt made before the purchase). Terminal: the app refreshes and submits again.
    case resubmit(reason: String)
    /// Give up now (the outcome cannot be recorded, a per-answer budget ran out). Terminal;
    /// kept for ops and re-drivable.
    case failed(reason: String)
    /// Back to `queued`, claimable again after `delayMilliseconds`.
    case retry(delayMilliseconds: Int64, error: String)
    /// A retry whose answer may mean the job itself is at fault (`Doubt`): the lifecycle gives it
    /// up sooner than a plain retry (`JobLifecycle.doubtWindow`, `secretMismatchAttempts`).
    case doubted(Doubt, delayMilliseconds: Int64, error: String)
    /// Apple did not answer in time: `timed_out`; the scheduler requeues it after `delayMilliseconds`.
    case timedOut(delayMilliseconds: Int64, error: String)
    /// Not attempted after all (shutdown, breaker opened): back to `queued` now, the attempt
    /// given back.
    case release
}

/// Why a retried answer may be the job's own fault rather than Apple's trouble.
public enum Doubt: String, Sendable, Hashable, CaseIterable {
    /// Apple answered 21002 ("malformed or a temporary issue") for a receipt not verified locally.
    case receipt
    /// Apple refused our shared secret for this receipt (21004).
    case sharedSecret

    /// The lifecycle's name for a retry with this doubt.
    var end: AttemptEnd { self == .receipt ? .receiptDoubted : .secretRefused }
}
