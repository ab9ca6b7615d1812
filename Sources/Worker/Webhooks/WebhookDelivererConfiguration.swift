import ReceiptQueue

/// How a worker process delivers webhooks. Every setting has its default here.
public struct WebhookDelivererConfiguration: Sendable {
    /// `locked_by` of its leases (the worker's name).
    public var name: String
    /// Deliveries in flight at most; 0 switches delivery off in this process. Default 500.
    public var concurrency: Int
    /// Most deliveries per claim. Default 200.
    public var maxClaimBatch: Int
    /// How long a claimed delivery is ours. Default 60 s.
    public var lease: Duration
    /// Time allowed for the receiver to answer one POST. Default 10 s.
    public var requestTimeout: Duration
    /// Look for deliveries this often without a NOTIFY. Default 1 s.
    public var pollInterval: Duration
    /// Reload the endpoints this often without a NOTIFY. Default 30 s.
    public var endpointRefresh: Duration
    /// On SIGTERM, how long deliveries in flight may finish before the rest are released (the
    /// worker's `--shutdown-deadline`). Default 3 s.
    public var shutdownDeadline: Duration
    public var decision: DeliveryDecision
    /// Per endpoint: after this many failures in a row (or half of the recent answers) stop
    /// sending to it and probe one delivery at a time. Default: 10 failures, 2 s doubling to 60 s.
    public var breaker: CircuitBreakerConfiguration

    public init(name: String, concurrency: Int = 500, maxClaimBatch: Int = 200, lease: Duration = .seconds(60),
                requestTimeout: Duration = .seconds(10), pollInterval: Duration = .seconds(1), endpointRefresh: Duration = .seconds(30),
                shutdownDeadline: Duration = .seconds(3), decision: DeliveryDecision = DeliveryDecision(),
                breaker: CircuitBreakerConfiguration = Self.defaultBreaker) {
        self.name = name
        self.concurrency = concurrency
        self.maxClaimBatch = maxClaimBatch
        self.lease = lease
        self.requestTimeout = requestTimeout
        self.pollInterval = pollInterval
        self.endpointRefresh = endpointRefresh
        self.shutdownDeadline = shutdownDeadline
        self.decision = decision
        self.breaker = breaker
    }

    public static var defaultBreaker: CircuitBreakerConfiguration {
        var breaker = CircuitBreakerConfiguration()
        breaker.failureThreshold = 10
        breaker.maxOpenDuration = .seconds(60)
        return breaker
    }

    public func validate() throws(WorkerConfigurationError) {
        guard (0...100_000).contains(concurrency) else { throw .init("--webhook-concurrency must be 0…100000") }
        guard maxClaimBatch > 0, lease > requestTimeout + .seconds(5), requestTimeout > .zero else {
            throw .init("the webhook lease must exceed the request timeout plus 5 s")
        }
    }
}
