/// How a claim batch goes out to Apple (see `WorkerConfiguration.canaryWindow` and `sendPace`).
/// Pure, so unit-tested; the worker tells it when it sends.
///
/// A batch goes out in chunks of `chunk` requests (the breaker's failure threshold), and before
/// each chunk after the first the worker checks that the breaker is still closed; the rest of a
/// batch whose breaker opened is released unsent. Apple's outages fail fast (refused, 503, an
/// HTML page) while its answers take seconds, so the pause lets the failures of one chunk open
/// the breaker before the next goes: the demo measured a thousand requests sent into an outage
/// that began while whole batches of 500 were going out.
///
/// The pause after the first chunk is `pace` when this worker sent a request between `window`
/// and 4 × `window` ago that Apple has not failed since (Apple was answering then, and an outage
/// that fails fast would have shown by now), and `window` after a lull in sending, when a backlog
/// claimed at once could follow an outage that began while the worker was quiet. A steadily busy
/// worker so pays only the pace (bench e2e lost 11% when every large batch waited `window`).
public struct CanaryPolicy<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public let window: Duration
    public let pace: Duration
    public let chunk: Int
    /// When requests were sent, oldest first; none older than 4 × window.
    private var sends: [Instant] = []

    public init(window: Duration, pace: Duration, chunk: Int) {
        self.window = window
        self.pace = pace
        self.chunk = max(1, chunk)
    }

    /// The pause between a batch's first chunk and its second. `newestFailureSentAt`: the
    /// breaker's newest Apple-side failure.
    public func firstPause(now: Instant, newestFailureSentAt: Instant?) -> Duration {
        guard window > .zero else { return pace }
        let vouched = sends.contains { sent in
            sent <= now - window && sent >= now - window * 4 && newestFailureSentAt.map { $0 < sent } ?? true
        }
        return vouched ? pace : window
    }

    public mutating func sent(at now: Instant) {
        sends.removeAll { $0 < now - window * 4 }
        // One mark per tenth of a window is enough to find a vouching send.
        if let last = sends.last, now - last < window / 10 { return }
        sends.append(now)
    }
}
