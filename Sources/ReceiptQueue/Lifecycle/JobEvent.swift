/// What can happen to a job. Each event is carried out by one statement, and each statement's
/// SQL is tested to agree with `JobLifecycle.next` (`LifecycleAgreementTests`). Giving up is not
/// an event of its own: it is where a retry, an expired lease or a due timeout leads once the
/// `RetryBudget` is spent, or a worker's `AttemptResult.failed`.
public enum JobEvent: Sendable, Hashable {
    /// A worker leases a due `queued` job (`ClaimBatch`); `attempts` goes up by one.
    case claim
    /// The lease holder writes how its attempt ended (`RecordOutcomes`, fenced by lease and attempt).
    case complete(AttemptEnd)
    /// The lease ran out: the worker died, hung or lost the database (`RescueExpiredLeases`).
    case leaseExpired
    /// A `timed_out` job's `run_at` has come (`RequeueTimedOut`).
    case timedOutDue
    /// The lease holder hands the job back unattempted (shutdown, or the breaker opened while its
    /// claim went out); its attempt is given back, so the budget is untouched.
    case release
    /// Ops put a `failed` job back in the queue (`RedriveFailedJobs`) once the cause is fixed.
    case redrive
    /// Ops discard a job that has not ended (`DiscardJobs`): a `queued` or `timed_out` job is
    /// given up into `failed` at once (kept, re-drivable, with a `job.failed` event). A leased
    /// job is left to its worker.
    case discard
}

/// How one attempt ended, as far as the job's state is concerned. `granted`, `alreadyGranted`
/// and `ownedElsewhere` are decided by the ledger inside the completing transaction, never
/// reported by a worker (see `AttemptResult`).
public enum AttemptEnd: String, Sendable, Hashable, CaseIterable {
    case granted
    case alreadyGranted
    case rejected
    case failed
    /// The receipt does not hold the transaction yet: `resubmit`.
    case resubmit
    /// The purchase is another account's: `owned_elsewhere`.
    case ownedElsewhere
    /// Try again after a delay: `queued`, unless the retry budget is spent.
    case retry
    /// Try again, though Apple's answer doubts the receipt itself (21002, for a receipt not
    /// verified on this machine): `queued`, unless the budget is spent or the doubts have lasted
    /// `JobLifecycle.doubtWindow` since enqueue.
    case receiptDoubted
    /// Try again, though Apple refused our shared secret for it (21004): `queued`, unless the
    /// budget is spent or this is its `JobLifecycle.secretMismatchAttempts`-th such answer.
    case secretRefused
    /// Apple did not answer in time: `timed_out` (the scheduler requeues it), unless the retry
    /// budget is spent.
    case timedOut
}
