import Synchronization

/// Limits failed authentication per key — a client's peer address, a presented credential:
/// `limit` failures a minute (a token bucket that refills `limit` per 60 s), after which further
/// *failing* requests under that key are answered 429 with `Retry-After` until the bucket refills.
/// Successful requests cost nothing, and are never refused here: `BearerAuthMiddleware` checks a
/// token before it asks this limiter, so a valid token passes from an address that others (behind
/// the same load balancer) made fail. At most `maxTracked` keys are remembered; when the table is
/// full, keys whose bucket has refilled are forgotten first, then the oldest, so the table cannot
/// be grown without bound. Used by the API (keyed by client address) and the support listener.
public final class AuthFailureLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limit: Double
    private let maxTracked: Int
    private let buckets = Mutex<[String: Bucket]>([:])
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// `limit` 0 switches the limiter off. `clock` tells the time when a call names none (tests
    /// freeze it, so that a slow machine does not refill a bucket mid-test).
    public init(failuresPerMinute limit: Int, maxTracked: Int = 10_000,
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.limit = Double(max(0, limit))
        self.maxTracked = max(1, maxTracked)
        self.clock = clock
    }

    /// Whole seconds to wait when `address` (a key) is blocked now, else nil.
    public func blocked(_ address: String, now: ContinuousClock.Instant? = nil) -> Int? {
        guard limit > 0 else { return nil }
        let now = now ?? clock()
        return buckets.withLock { buckets in
            guard var bucket = buckets[address] else { return nil }
            refill(&bucket, now: now)
            buckets[address] = bucket
            return bucket.tokens >= 1 ? nil : wait(bucket)
        }
    }

    /// Counts a failure of `address`. Returns whole seconds to wait when that used its last
    /// allowance (its next request is blocked), else nil.
    @discardableResult
    public func failed(_ address: String, now: ContinuousClock.Instant? = nil) -> Int? {
        guard limit > 0 else { return nil }
        let now = now ?? clock()
        return buckets.withLock { buckets in
            var bucket = buckets[address] ?? Bucket(tokens: limit, updated: now)
            refill(&bucket, now: now)
            bucket.tokens = max(0, bucket.tokens - 1)
            if buckets[address] == nil && buckets.count >= maxTracked { evict(&buckets, now: now) }
            buckets[address] = bucket
            return bucket.tokens >= 1 ? nil : wait(bucket)
        }
    }

    /// Addresses remembered now (tests).
    public var tracked: Int { buckets.withLock { $0.count } }

    private var perSecond: Double { limit / 60 }

    private func refill(_ bucket: inout Bucket, now: ContinuousClock.Instant) {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(limit, bucket.tokens + max(0, seconds) * perSecond)
        bucket.updated = max(bucket.updated, now)
    }

    private func wait(_ bucket: Bucket) -> Int {
        max(1, Int(((1 - bucket.tokens) / perSecond - 1e-9).rounded(.up)))   // less float noise: 1.0000001 s is 1 s
    }

    private func evict(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        for (address, var bucket) in buckets {
            refill(&bucket, now: now)
            if bucket.tokens >= limit { buckets[address] = nil }
        }
        while buckets.count >= maxTracked, let oldest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key {
            buckets[oldest] = nil
        }
    }
}
