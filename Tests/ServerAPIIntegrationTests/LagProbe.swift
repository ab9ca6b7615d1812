import Postgres
import Synchronization

/// How long something a timing test depends on could not serve it, so a machine busy with other
/// tests weakens the test's lower bounds instead of failing them. A probe samples every 10 ms and
/// adds up how far each sample took beyond 2 ms:
/// - `scheduling()`: this test process could not run a task it wanted to (a 10 ms sleep woke late);
/// - `database(_:)`: PostgreSQL could not answer (`SELECT 1` on a connection of its own; ~0.3 ms on
///   a quiet machine). Beside the whole suite on 2 cores its backends wait for a core too, and
///   whatever takes its work from the database cannot go faster than the database answers.
final class LagProbe: Sendable {
    private let samples = Mutex<[(at: ContinuousClock.Instant, took: Duration)]>([])
    private let probe = Mutex<Task<Void, Never>?>(nil)

    /// The lateness of a 10 ms sleep, sampled until stopped.
    static func scheduling(every interval: Duration = .milliseconds(10)) -> LagProbe {
        start {
            let due = ContinuousClock.now + interval
            try? await Task.sleep(until: due, clock: .continuous)
            return ContinuousClock.now - due
        }
    }

    /// The round trip of `SELECT 1` every 10 ms, on a pool of one connection of its own.
    static func database(_ configuration: PostgresConfiguration, every interval: Duration = .milliseconds(10)) -> LagProbe {
        let pool = PostgresPool(configuration: configuration, size: 1, name: "database-lag-probe")
        return start(finally: { pool.shutdown() }) {
            try? await Task.sleep(for: interval)
            let sent = ContinuousClock.now
            guard (try? await pool.query("SELECT 1")) != nil else { return nil }
            return ContinuousClock.now - sent
        }
    }

    /// Runs `sample` until stopped; each returns how long what it waited for took (nil: no sample).
    private static func start(finally: @escaping @Sendable () -> Void = {},
                              _ sample: @escaping @Sendable () async -> Duration?) -> LagProbe {
        let lag = LagProbe()
        let task = Task { [lag] in
            defer { finally() }
            while !Task.isCancelled {
                guard let took = await sample() else { continue }
                let now = ContinuousClock.now
                lag.samples.withLock { $0.append((now, took)) }
            }
        }
        lag.probe.withLock { $0 = task }
        return lag
    }

    /// Stops the probe; returns the time beyond 2 ms per sample taken inside `window`.
    func stop(in window: Range<ContinuousClock.Instant>) async -> Duration {
        let task = probe.withLock { $0 }
        task?.cancel()
        await task?.value
        return samples.withLock { samples in
            samples.filter { window.contains($0.at) }.reduce(Duration.zero) { $0 + max(.zero, $1.took - .milliseconds(2)) }
        }
    }
}

extension Duration {
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
