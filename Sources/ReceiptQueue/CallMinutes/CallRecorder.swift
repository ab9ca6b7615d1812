import Foundation
import Synchronization

/// A process's `CallTally`, shared by everything in it that calls out (the verifyReceipt engine,
/// Server API clients, the webhook deliverer) and drained every few seconds by `CallMinutesWriter`
/// into `receiptq.call_minutes`. Recording is a lock and a dictionary update: nothing waits on
/// PostgreSQL. What a process never drains only grows by one row per minute and target.
public final class CallRecorder: Sendable {
    private let tally = Mutex(CallTally())
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds since 1970; tests pass their own.
    public init(clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.clock = clock
    }

    /// One call to `target` that took `duration` and has just ended.
    public func record(_ target: CallTarget, took duration: Duration, failed: Bool) {
        let now = clock(), (whole, atto) = duration.components
        let seconds = Double(whole) + Double(atto) / 1e18
        tally.withLock { $0.record(target, seconds: seconds, failed: failed, at: now) }
    }

    /// `target`'s breaker has moved to `state`.
    public func breaker(_ target: CallTarget, _ state: CallBreakerState) {
        let now = clock()
        tally.withLock { $0.breaker(target, state, at: now) }
    }

    /// What was recorded since the last drain (see `CallTally.drain`).
    public func drain() -> [CallTally.Minute] {
        let now = clock()
        return tally.withLock { $0.drain(at: now) }
    }

    /// Rows a failed write did not store: carried by the next drain.
    public func restore(_ rows: [CallTally.Minute]) {
        tally.withLock { $0.restore(rows) }
    }
}
