import Postgres
import Synchronization

/// How long PostgreSQL could not answer: a probe on its own connection runs `SELECT 1` every 10 ms
/// and adds up how long each round trip took beyond 2 ms (one takes ~0.3 ms on a quiet machine).
/// `SchedulingLag` sees this test process starved; this sees the database starved — beside the
/// whole suite on 2 cores, PostgreSQL's backends wait for a core too, and a limiter that takes its
/// tokens from the database cannot take them faster than the database answers.
final class DatabaseLag: Sendable {
    private let slowness = Mutex<[(at: ContinuousClock.Instant, slow: Duration)]>([])
    private let probe = Mutex<Task<Void, Never>?>(nil)

    static func start(_ configuration: PostgresConfiguration, every interval: Duration = .milliseconds(10)) -> DatabaseLag {
        let lag = DatabaseLag()
        let pool = PostgresPool(configuration: configuration, size: 1, name: "database-lag-probe")
        let task = Task { [lag] in
            defer { pool.shutdown() }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let sent = ContinuousClock.now
                guard (try? await pool.query("SELECT 1")) != nil else { continue }
                let now = ContinuousClock.now
                lag.slowness.withLock { $0.append((now, now - sent)) }
            }
        }
        lag.probe.withLock { $0 = task }
        return lag
    }

    /// Stops the probe; returns the round-trip time beyond 2 ms per probe answered inside `window`.
    func stop(in window: Range<ContinuousClock.Instant>) async -> Duration {
        let task = probe.withLock { $0 }
        task?.cancel()
        await task?.value
        return slowness.withLock { samples in
            samples.filter { window.contains($0.at) }.reduce(Duration.zero) { $0 + max(.zero, $1.slow - .milliseconds(2)) }
        }
    }
}
