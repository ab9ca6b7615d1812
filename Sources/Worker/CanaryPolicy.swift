/// How many of a claim batch go out at once (see `WorkerConfiguration.canaryWindow`). Pure, so
/// unit-tested; the worker tells it when it sends.
///
/// A batch goes out whole when this worker sent a request between `window` and 4 × `window`
/// ago that Apple has not failed since: Apple was answering then, and an outage that fails fast
/// would have shown by now. A steadily busy worker always has such a request, so it pays
/// nothing (bench e2e lost 11% when every large batch waited). After a lull in sending it has
/// none, and that is when a backlog claimed at once could follow an outage that began while it
/// was quiet: then only `canaries` go first.
public struct CanaryPolicy: Sendable {
    public let window: Duration
    public let canaries: Int
    /// When requests were sent, oldest first; none older than 4 × window.
    private var sends: [ContinuousClock.Instant] = []

    public init(window: Duration, canaries: Int) {
        self.window = window
        self.canaries = canaries
    }

    /// Requests of a `batch` to send now; the rest wait `window` and go only if the breaker
    /// stays closed. `newestFailureSentAt`: the breaker's newest Apple-side failure.
    public func sendNow(batch: Int, now: ContinuousClock.Instant, newestFailureSentAt: ContinuousClock.Instant?) -> Int {
        guard window > .zero, batch > canaries else { return batch }
        let vouched = sends.contains { sent in
            sent <= now - window && sent >= now - window * 4 && newestFailureSentAt.map { $0 < sent } ?? true
        }
        return vouched ? batch : canaries
    }

    public mutating func sent(at now: ContinuousClock.Instant) {
        sends.removeAll { $0 < now - window * 4 }
        // One mark per tenth of a window is enough to find a vouching send.
        if let last = sends.last, now - last < window / 10 { return }
        sends.append(now)
    }
}
