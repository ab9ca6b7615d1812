import CommandSupport
import FakeAppStore
import Synchronization

/// Requests reaching the fake App Store over time, sampled every 250 ms, so the run can tell how
/// hard the workers pressed Apple while it was down.
///
/// The first 3 s of an outage are the workers finding out: what was claimed at that moment goes
/// out, and each breaker needs 20 failures to open. That burst is reported, not bounded. After
/// it, a well-behaved fleet sends one probe at a time per worker, at most every 2 s, and at most
/// one slow start of 20 requests per worker process: a worker started during the outage, or one
/// whose probe was sent just before the outage and came back fine after it began. The bound is
/// `workers × ((window − 3 s) / 2 s + 1) + 20 × (workers + starts)`.
final class ChaosAppleRate: Sendable {
    struct Window: Sendable, Codable {
        var kind: String
        var startSeconds: Double
        var endSeconds: Double
        /// Requests in the first 3 s (breakers opening).
        var openingRequests: Int
        /// Requests in the rest of the window, and their bound.
        var requests: Int
        var bound: Int
    }

    static let openingSeconds = 3.0

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

    /// `workerStarts`: when worker processes were started (restarts), in seconds since start.
    /// `slowestAnswer`: Apple's latency at most. A 21002 storm fails slowly (each 21002 comes back
    /// after the usual latency), so the breakers learn of it that much later.
    func windows(_ outages: [FakeOutage], workers: Int, workerStarts: [Double], slowestAnswer: Duration) -> [Window] {
        outages.map { outage in
            let from = outage.start.seconds, to = outage.end.seconds
            let learning = Self.openingSeconds + (outage.kind == .malformed21002 ? slowestAnswer.seconds : 0)
            let settled = min(to, from + learning)
            let starts = workerStarts.filter { $0 >= from && $0 < to }.count
            let probes = Int(((to - settled) / 2).rounded(.up)) + 1
            return Window(kind: outage.kind.rawValue, startSeconds: from, endSeconds: to,
                          openingRequests: requests(from: from, to: settled), requests: requests(from: settled, to: to),
                          bound: workers * probes + 20 * (workers + starts))
        }
    }
}
