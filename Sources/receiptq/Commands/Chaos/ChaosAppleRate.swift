import FakeAppStore
import Synchronization

/// Requests reaching the fake App Store over time, sampled every 250 ms, so the run can tell how
/// hard the workers pressed Apple while it was down. A well-behaved fleet trips its circuit
/// breakers and then sends one probe at a time per worker: the bound per outage window is
/// `workers × (40 + window in s / 2)` (40 failures at most to open, a probe at most every 2 s).
final class ChaosAppleRate: Sendable {
    struct Window: Sendable, Codable {
        var kind: String
        var startSeconds: Double
        var endSeconds: Double
        var requests: Int
        var bound: Int
    }

    private let samples = Mutex<[(seconds: Double, requests: Int)]>([])
    private let stats: FakeAppStoreStats

    init(stats: FakeAppStoreStats) { self.stats = stats }

    /// Samples until cancelled.
    func run(start: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let requests = stats.snapshot().requests
            samples.withLock { $0.append(((ContinuousClock.now - start).seconds, requests)) }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Requests counted between the samples nearest to `from` and `to` (seconds since start).
    func requests(from: Double, to: Double) -> Int {
        samples.withLock { samples in
            let first = samples.last { $0.seconds <= from }?.requests ?? 0
            let last = samples.first { $0.seconds >= to }?.requests ?? samples.last?.requests ?? 0
            return last - first
        }
    }

    func windows(_ outages: [FakeOutage], workers: Int) -> [Window] {
        outages.map { outage in
            let from = outage.start.seconds, to = outage.end.seconds
            return Window(kind: outage.kind.rawValue, startSeconds: from, endSeconds: to,
                          requests: requests(from: from, to: to), bound: workers * (40 + Int((to - from) / 2)))
        }
    }
}
