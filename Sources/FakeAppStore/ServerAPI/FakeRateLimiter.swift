import Foundation
import Synchronization

/// Apple's per-app, per-endpoint limits as the fake enforces them: one `FakeTokenBucket` per
/// endpoint and environment, made on first use.
final class FakeRateLimiter: Sendable {
    private let buckets = Mutex<[String: FakeTokenBucket]>([:])
    private let configuration: FakeServerAPIConfiguration

    init(configuration: FakeServerAPIConfiguration) {
        self.configuration = configuration
    }

    /// `nil` when the request may go; else when the next one may, as a `Date`.
    func admit(_ endpoint: String, environment: FakeEnvironment, now: Date) -> Date? {
        let seconds = now.timeIntervalSince1970
        let wait = buckets.withLock { buckets -> Double? in
            let key = environment.rawValue + "/" + endpoint
            var bucket = buckets[key] ?? {
                let rate = configuration.rate(for: endpoint, environment: environment)
                let burst = Double(configuration.rateBurst.components.seconds) + Double(configuration.rateBurst.components.attoseconds) / 1e18
                return FakeTokenBucket(rate: rate, capacity: rate * burst)
            }()
            defer { buckets[key] = bucket }
            return bucket.take(now: seconds)
        }
        return wait.map { now.addingTimeInterval($0) }
    }
}
