import Synchronization

/// How long this test process could not run a task it wanted to: a probe sleeps 10 ms at a time
/// and adds up how late each wake-up came. Timing tests subtract it, so a machine busy with other
/// tests weakens their lower bounds instead of failing them.
final class SchedulingLag: Sendable {
    private let lateness = Mutex<[(at: ContinuousClock.Instant, late: Duration)]>([])
    private let probe = Mutex<Task<Void, Never>?>(nil)

    static func start(every interval: Duration = .milliseconds(10)) -> SchedulingLag {
        let lag = SchedulingLag()
        let task = Task { [lag] in
            while !Task.isCancelled {
                let due = ContinuousClock.now + interval
                try? await Task.sleep(until: due, clock: .continuous)
                let now = ContinuousClock.now
                lag.lateness.withLock { $0.append((now, now - due)) }
            }
        }
        lag.probe.withLock { $0 = task }
        return lag
    }

    /// Stops the probe; returns the lateness beyond 2 ms per wake-up inside `window`.
    func stop(in window: Range<ContinuousClock.Instant>) async -> Duration {
        let task = probe.withLock { $0 }
        task?.cancel()
        await task?.value
        return lateness.withLock { samples in
            samples.filter { window.contains($0.at) }.reduce(Duration.zero) { $0 + max(.zero, $1.late - .milliseconds(2)) }
        }
    }
}

extension Duration {
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
