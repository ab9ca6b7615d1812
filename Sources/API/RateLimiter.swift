import Synchronization

/// A token bucket per API token: `ratePerSecond` requests per second on average, bursts up to
/// `burst`. In memory and per process (several API processes each allow the rate).
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let ratePerSecond: Double
    private let burst: Double
    private let buckets = Mutex<[Int: Bucket]>([:])

    /// `ratePerSecond` 0 means unlimited.
    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(burst, 1)
    }

    /// Takes one request from `key`'s bucket. Returns nil when allowed, else whole seconds to wait.
    func acquire(key: Int, now: ContinuousClock.Instant = .now) -> Int? {
        guard ratePerSecond > 0 else { return nil }
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double((now - bucket.updated).components.attoseconds) / 1e18
                + Double((now - bucket.updated).components.seconds)
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * ratePerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / ratePerSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
