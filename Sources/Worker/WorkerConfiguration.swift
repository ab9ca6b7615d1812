import AppStore
import HTTPClient
import ReceiptQueue

/// Everything a worker process is told. Every setting but the name and bundle ids has a
/// default, written once here (the command line and environment only override what is given);
/// `validate()` owns the rules between settings and runs once at start.
public struct WorkerConfiguration: Sendable {
    /// This worker's name in `locked_by` (host and pid by default in the command). Must be
    /// unique per process.
    public var name: String
    /// Bundle ids of our apps; a receipt of any other app is rejected. Required, never empty.
    public var bundleIDs: Set<String>
    /// Accept receipts Apple verified in the sandbox (App Review and TestFlight buy there with
    /// production builds); the grant is marked environment=Sandbox. Default true.
    public var acceptSandbox: Bool
    /// Verifications in flight at most; also the most jobs leased at once. Default 2,000.
    public var concurrency: Int
    /// Most jobs per claim statement. Default 500.
    public var maxClaimBatch: Int
    /// How long a claimed job is ours. Must exceed the longest verification (two Apple calls
    /// when the environment switches) plus writing. Default 60 s.
    public var lease: Duration
    /// Look at the queue this often even without a NOTIFY. Default 1 s.
    public var pollInterval: Duration
    /// On SIGTERM, how long in-flight verifications (and the process's Server API lookups,
    /// webhook deliveries and consumption answers) may finish before the rest are released.
    /// Default 3 s, so the whole process exits within 5 s of SIGTERM (invariant 11) with a margin
    /// for the final write: Apple answers in 3–6 s, so most verifications in flight are released
    /// rather than waited for, and that is safe — a released job goes back to the queue at once
    /// with its attempt given back, and another worker verifies it (asking Apple twice is
    /// harmless; the ledger grants once). A longer deadline saves those repeated requests during
    /// a rolling restart, at the price of a process that takes that long to stop.
    public var shutdownDeadline: Duration
    /// After a lull in sending, a claim batch larger than the breaker's failure threshold sends
    /// that many requests first and the rest only if the breaker is still closed this long
    /// after (`CanaryPolicy`): Apple's outages fail fast (refused, 503, an HTML page), so the
    /// first requests open the breaker before a backlog of hundreds follows them into the
    /// outage. Successes take seconds, so only the absence of failures can be waited for. Must
    /// cover a round trip to Apple with a TLS handshake. Default 500 ms; zero: never wait.
    public var canaryWindow: Duration
    /// Between the chunks (of the breaker's failure threshold) of a claim batch otherwise, so a
    /// worker sends at most 4,000 requests/s and fast failures stop a batch part-way. Default 5 ms.
    public var sendPace: Duration
    /// When several distinct jobs are answered 21004 (our shared secret refused) within a
    /// minute, the secret really is wrong: claim nothing for this long, then one job at a time
    /// until Apple accepts the secret again. Default 60 s. One job's 21004 never pauses anything.
    public var configurationErrorPause: Duration
    /// Distinct jobs answered 21004 within a minute that pause claiming. Default 5.
    public var secretMismatchJobs: Int
    /// Backoff between attempts and the budget before giving up. Default: `RetryPolicy()`
    /// (2 s doubling to 10 min; 72 h or 1,000 attempts).
    public var retry: RetryPolicy
    /// How long answers that doubt the receipt (21002) are retried before the job is given up
    /// into `failed` (never rejected). Default 24 h.
    public var doubtWindow: Duration
    /// 21004 answers for one job before it is given up into `failed`. Default 5.
    public var secretMismatchAttempts: Int
    /// Where and how Apple's verifyReceipt is asked (URLs, shared secret, timeout per call).
    /// Default: `VerifyReceiptClientConfiguration()` (Apple's servers, 15 s).
    public var apple: VerifyReceiptClientConfiguration
    public var breaker: CircuitBreakerConfiguration
    /// Stragglers asked again past the recent p99 (`HedgePolicy`); nil: never. Default: at most
    /// 2% of requests.
    public var hedging: HedgePolicy?
    public var writer: OutcomeWriter.Configuration

    public init(
        name: String,
        bundleIDs: Set<String>,
        acceptSandbox: Bool = true,
        concurrency: Int = 2000,
        maxClaimBatch: Int = 500,
        lease: Duration = .seconds(60),
        pollInterval: Duration = .seconds(1),
        shutdownDeadline: Duration = .seconds(3),
        canaryWindow: Duration = .milliseconds(500),
        sendPace: Duration = .milliseconds(5),
        configurationErrorPause: Duration = .seconds(60),
        secretMismatchJobs: Int = 5,
        retry: RetryPolicy = RetryPolicy(),
        doubtWindow: Duration = .seconds(24 * 3600),
        secretMismatchAttempts: Int = 5,
        apple: VerifyReceiptClientConfiguration = VerifyReceiptClientConfiguration(),
        breaker: CircuitBreakerConfiguration = CircuitBreakerConfiguration(),
        writer: OutcomeWriter.Configuration = OutcomeWriter.Configuration()
    ) {
        self.name = name
        self.bundleIDs = bundleIDs
        self.acceptSandbox = acceptSandbox
        self.concurrency = concurrency
        self.maxClaimBatch = maxClaimBatch
        self.lease = lease
        self.pollInterval = pollInterval
        self.shutdownDeadline = shutdownDeadline
        self.canaryWindow = canaryWindow
        self.sendPace = sendPace
        self.configurationErrorPause = configurationErrorPause
        self.secretMismatchJobs = secretMismatchJobs
        self.retry = retry
        self.doubtWindow = doubtWindow
        self.secretMismatchAttempts = secretMismatchAttempts
        self.apple = apple
        self.breaker = breaker
        self.hedging = HedgePolicy()
        self.writer = writer
    }

    /// The defaults, for help texts.
    public static var defaults: WorkerConfiguration { WorkerConfiguration(name: "", bundleIDs: []) }

    /// How Apple's answers become outcomes, from these settings.
    public var decision: AttemptDecision {
        AttemptDecision(rules: .init(bundleIDs: bundleIDs, acceptSandbox: acceptSandbox), retryPolicy: retry)
    }

    /// Where each recorded attempt leaves its job.
    public var lifecycle: JobLifecycle {
        JobLifecycle(budget: retry.budget, doubtWindow: doubtWindow, secretMismatchAttempts: secretMismatchAttempts)
    }

    /// Checks every rule that involves more than one setting, and each setting's range. The
    /// message names the setting as the command line spells it.
    public func validate() throws(WorkerConfigurationError) {
        guard !name.isEmpty, name.utf8.count <= 200 else { throw .init("--name must be 1…200 characters") }
        guard !bundleIDs.isEmpty else {
            throw .init("--bundle-ids / RECEIPTQ_BUNDLE_IDS is required: the bundle ids of your apps (receipts of other apps are rejected)")
        }
        guard (1...100_000).contains(concurrency) else { throw .init("--concurrency must be 1…100000") }
        guard maxClaimBatch > 0 else { throw .init("the claim batch must be positive") }
        guard apple.requestTimeout > .zero else { throw .init("--apple-timeout must be positive") }
        guard lease > apple.requestTimeout * 2 + .seconds(5) else {
            throw .init("--lease must exceed twice --apple-timeout plus 5 s (an environment switch makes two calls)")
        }
        guard pollInterval > .zero, shutdownDeadline >= .zero else { throw .init("--poll-interval must be positive") }
        guard canaryWindow >= .zero, canaryWindow < .seconds(10) else { throw .init("--canary-window must be within [0, 10s)") }
        guard secretMismatchAttempts > 0, secretMismatchJobs > 0, retry.budget.maxAttempts > 0 else {
            throw .init("--secret-mismatch-attempts and --max-attempts must be positive")
        }
        guard doubtWindow >= .seconds(3600) else {
            throw .init("--doubt-window must be at least 1h: 21002 also means a temporary issue at Apple, retried over hours")
        }
        guard retry.budget.deadline > .zero else { throw .init("--retry-deadline must be positive") }
        // The shared secret travels in the body: never in clear text across a network.
        for (flag, url) in [("--apple-production-url", apple.productionURL), ("--apple-sandbox-url", apple.sandboxURL)]
        where TransportPolicy.of(url) == nil {
            throw .init("\(flag) must be an https URL (plain http only to 127.0.0.1 or localhost, e.g. the fake App Store)")
        }
    }
}

/// A worker setting that cannot work; the message names the flag.
public struct WorkerConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
