import Synchronization

/// A clock that moves only when a test says so, for the decision types that take their time
/// from outside (`CircuitBreaker`, `CanaryPolicy`, `WorkerGate`) and for code that sleeps on an
/// injected clock: `sleep(until:)` returns once `advance(by:)` has moved time past the deadline.
/// A library of its own, as postgres-nio keeps its MockClock, so tests of any target can use it.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Time since the clock's zero.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }

        public static func + (instant: Instant, duration: Duration) -> Instant { instant.advanced(by: duration) }
        public static func - (instant: Instant, duration: Duration) -> Instant { instant.advanced(by: .zero - duration) }

        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state: Mutex<(now: Instant, sleepers: [Sleeper])>

    public init(now: Instant = Instant(offset: .zero)) {
        state = Mutex((now, []))
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now + duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let resumeNow = state.withLock { state -> Bool in
                if deadline <= state.now { return true }
                state.sleepers.append(Sleeper(deadline: deadline, continuation: continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
