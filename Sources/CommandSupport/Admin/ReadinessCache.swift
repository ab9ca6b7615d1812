/// When a readiness probe may answer from its last check, join one in flight, or must check
/// again. Pure, on the caller's clock (`ReadinessCacheTests`).
///
/// Why: load balancers and kubelets probe every few seconds, per replica and per balancer, and
/// each check is a database round trip. One check a `lifetime` (1 s) serves them all; callers
/// that arrive while it runs wait for it instead of starting their own.
public struct ReadinessCache<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public enum Step: Sendable, Equatable {
        /// The last check is recent enough: answer it.
        case answer(Readiness)
        /// A check is running: wait for its result.
        case join
        /// Check now (the caller must report `finished`).
        case check
    }

    /// How long a result is answered without checking again. Default 1 s.
    public let lifetime: Duration
    private var last: (readiness: Readiness, at: Instant)?
    private var checking = false

    public init(lifetime: Duration = .seconds(1)) {
        self.lifetime = lifetime
    }

    public mutating func next(now: Instant) -> Step {
        if let last, last.at.duration(to: now) < lifetime { return .answer(last.readiness) }
        if checking { return .join }
        checking = true
        return .check
    }

    public mutating func finished(_ readiness: Readiness, now: Instant) {
        last = (readiness, now)
        checking = false
    }
}
