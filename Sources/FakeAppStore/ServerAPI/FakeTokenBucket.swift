/// Apple's per-endpoint limit as the fake enforces it: a token bucket of `capacity` refilled at
/// `rate` per second. Pure: time is passed in, in seconds.
public struct FakeTokenBucket: Sendable, Equatable {
    public let rate: Double
    public let capacity: Double
    public private(set) var tokens: Double
    private var last: Double?

    /// Starts full, as an endpoint nobody called for a while.
    public init(rate: Double, capacity: Double) {
        self.rate = rate
        self.capacity = max(1, capacity)
        self.tokens = max(1, capacity)
    }

    /// Takes one token at `now`; returns `nil` when the request may go, else the seconds until a
    /// token will be there (what `Retry-After` reports).
    public mutating func take(now: Double) -> Double? {
        if let last { tokens = min(capacity, tokens + rate * max(0, now - last)) }
        last = max(last ?? now, now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / rate
    }
}
