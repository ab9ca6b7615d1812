import AppStore
import ReceiptQueue

/// Everything a worker process is told. Validated once at start by the executable.
public struct WorkerConfiguration: Sendable {
    /// This worker's name in `locked_by` (host and pid by default). Must be unique per process.
    public var name: String
    /// Verifications in flight at most; also the most jobs leased at once. Default 2,000.
    public var concurrency = 2000
    /// Most jobs per claim statement. Default 500.
    public var maxClaimBatch = 500
    /// How long a claimed job is ours. Must exceed the longest verification (two Apple calls
    /// when the environment switches) plus writing. Default 60 s.
    public var lease: Duration = .seconds(60)
    /// Look at the queue this often even without a NOTIFY. Default 1 s.
    public var pollInterval: Duration = .seconds(1)
    /// On SIGTERM, how long in-flight verifications may finish before the rest are released.
    /// Default 20 s.
    public var shutdownDeadline: Duration = .seconds(20)
    /// After a lull in sending, a claim batch larger than the breaker's failure threshold sends
    /// that many requests first and the rest only if the breaker is still closed this long
    /// after (`CanaryPolicy`): Apple's outages fail fast (refused, 503, an HTML page), so the
    /// first requests open the breaker before a backlog of hundreds follows them into the
    /// outage. Successes take seconds, so only the absence of failures can be waited for. Must
    /// cover a round trip to Apple with a TLS handshake. Default 500 ms; zero: never wait.
    public var canaryWindow: Duration = .milliseconds(500)
    /// Between the chunks (of the breaker's failure threshold) of a claim batch otherwise, so a
    /// worker sends at most 4,000 requests/s and fast failures stop a batch part-way. Default 5 ms.
    public var sendPace: Duration = .milliseconds(5)
    /// After Apple says our shared secret is wrong (21004), claim nothing for this long. Default 60 s.
    public var configurationErrorPause: Duration = .seconds(60)
    public var decision: AttemptDecision
    public var breaker = CircuitBreaker.Configuration()
    public var writer = OutcomeWriter.Configuration()

    public init(name: String, decision: AttemptDecision) {
        self.name = name
        self.decision = decision
    }
}
