/// `+` and `-` for any instant measured in `Duration`, as `ContinuousClock.Instant` has them, so
/// the pure decision types (`CircuitBreaker`, `CanaryPolicy`, `WorkerGate`) read the same whatever
/// clock drives them.
extension InstantProtocol where Duration == Swift.Duration {
    static func + (instant: Self, duration: Swift.Duration) -> Self { instant.advanced(by: duration) }
    static func - (instant: Self, duration: Swift.Duration) -> Self { instant.advanced(by: .zero - duration) }
    static func - (later: Self, earlier: Self) -> Swift.Duration { earlier.duration(to: later) }
}
