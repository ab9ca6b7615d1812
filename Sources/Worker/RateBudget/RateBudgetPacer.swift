/// Paces one process's requests to one Server API endpoint within the fleet's shared budget. Pure:
/// the bucket that owns it feeds it the time, the number of callers waiting, and the database's
/// grants; it answers what to do next (`Step`). So every rule is unit-tested on a manual clock.
///
/// The process takes tokens from the database in small batches — at most `rate × batchWindow`, and
/// no more than callers are waiting — and lets them out one per `1 / rate` instead of all at once:
/// a batch of five at 50/s goes out over 80 ms, not in one instant, so the fleet's stream stays
/// close to the bucket's shape however the takes of several processes interleave. Tokens not let
/// out within `holdLimit` (the callers went away) are dropped rather than kept for a later burst.
/// When the database grants fewer than asked, the next take waits for the time it names (until the
/// next whole token, or the end of Apple's 429 pause), plus a little jitter so processes that were
/// refused together do not all come back in the same instant.
public struct RateBudgetPacer<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public enum Step: Sendable, Equatable {
        /// Let one waiting caller send its request now.
        case release
        /// Ask the database for this many tokens, then report with `granted` or `takeFailed`.
        case take(Int)
        /// Nothing to do before this instant.
        case wait(until: Instant)
        /// No caller is waiting.
        case idle
    }

    public let configuration: RateBudgetPacing
    /// Tokens in hand, not yet let out.
    public private(set) var stock = 0
    private var stockTakenAt: Instant?
    private var nextRelease: Instant?
    /// The bucket's rate, learned from the first grant; nil until then (the first take asks for 1).
    public private(set) var ratePerSecond: Double?
    private var notBefore: Instant?
    private var asked = 0

    public init(configuration: RateBudgetPacing = .init()) {
        self.configuration = configuration
    }

    /// One request's share of a second at the bucket's rate.
    var spacing: Duration {
        guard let rate = ratePerSecond, rate > 0 else { return .zero }
        return .nanoseconds(Int64((1e9 / rate).rounded()))
    }

    /// The most tokens one take asks for.
    public var maximumBatch: Int {
        guard let rate = ratePerSecond else { return 1 }
        let seconds = Double(configuration.batchWindow.components.seconds) + Double(configuration.batchWindow.components.attoseconds) / 1e18
        return max(1, Int((rate * seconds).rounded(.down)))
    }

    /// What to do now, with `waiting` callers queued.
    public mutating func next(now: Instant, waiting: Int) -> Step {
        if stock > 0, let takenAt = stockTakenAt, now - takenAt > configuration.holdLimit {
            stock = 0
        }
        guard waiting > 0 else { return .idle }
        if stock > 0 {
            // Catch up by at most one spacing, so a late wake-up costs no budget but never bursts.
            let due = max(nextRelease ?? now, now - spacing)
            guard due <= now else { return .wait(until: due) }
            stock -= 1
            nextRelease = due + spacing
            return .release
        }
        if let notBefore, now < notBefore { return .wait(until: notBefore) }
        asked = min(waiting, maximumBatch)
        return .take(asked)
    }

    /// The database granted `granted` tokens of a bucket refilling at `ratePerSecond`; `wait` is how
    /// long it said to wait when it granted fewer than asked. `jitter` (the caller's randomness) is
    /// added to that wait.
    public mutating func granted(_ granted: Int, ratePerSecond: Double, wait: Duration, jitter: Duration = .zero, now: Instant) {
        self.ratePerSecond = ratePerSecond
        stock += granted
        stockTakenAt = now
        if granted < asked {
            notBefore = now + max(wait, configuration.minimumTakeInterval) + jitter
        } else {
            notBefore = nil
        }
    }

    /// The take failed (database trouble): try again after `errorBackoff`.
    public mutating func takeFailed(now: Instant) {
        notBefore = now + configuration.errorBackoff
    }

    /// Apple answered 429: drop the tokens in hand (they would be refused too) and take nothing
    /// before `until`.
    public mutating func paused(until: Instant) {
        stock = 0
        nextRelease = nil
        notBefore = max(notBefore ?? until, until)
    }
}
