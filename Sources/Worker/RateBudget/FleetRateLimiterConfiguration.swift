import AppStoreServerAPI

/// How a process shares the fleet's App Store Server API budget. Every parameter has a default.
public struct FleetRateLimiterConfiguration: Sendable {
    /// The rates to budget. Default: Apple's published limits (sandbox 10%).
    public var limits: ServerAPIRateLimits
    /// A bucket holds at most this much time's worth of tokens, so an idle fleet resumes with a
    /// burst no larger than this. Kept well under Apple's own one-second granularity so that the
    /// delay between a grant and the request reaching Apple cannot add up to a 429. Default: 200 ms.
    public var burst: Duration
    /// How each process takes and lets out its tokens. Default: `RateBudgetPacing()`.
    public var pacing: RateBudgetPacing
    /// Random delay added to a refused take, up to this. Default: 5 ms.
    public var maximumJitter: Duration

    public init(limits: ServerAPIRateLimits = .init(), burst: Duration = .milliseconds(200),
                pacing: RateBudgetPacing = .init(), maximumJitter: Duration = .milliseconds(5)) {
        self.limits = limits
        self.burst = burst
        self.pacing = pacing
        self.maximumJitter = maximumJitter
    }

    /// The bucket's capacity for a rate: `rate × burst`, at least one token.
    public func capacity(forRate rate: Double) -> Double {
        let seconds = Double(burst.components.seconds) + Double(burst.components.attoseconds) / 1e18
        return max(1, rate * seconds)
    }

    public func validate() throws {
        try limits.validate()
        guard burst > .zero, pacing.batchWindow > .zero, pacing.holdLimit >= pacing.batchWindow, maximumJitter >= .zero else {
            throw ServerAPIConfigurationError.invalidRate("burst and batch window must be positive, hold limit at least the batch window")
        }
    }
}
