/// One process's calls out, summed per minute and target until they are written to
/// `receiptq.call_minutes` (`CallMinutes.add`). Pure: the caller passes the time of every event
/// (seconds since 1970), nothing here reads a clock.
///
/// Latency goes into a fixed histogram (`latencyBoundsMilliseconds`), so sums from many workers and
/// many beats add up exactly and a percentile of the whole fleet can be read from them (to a
/// bucket's bound; a mean or a per-worker percentile could not be combined). A breaker's state is
/// kept per target as it is now, and each minute holds the worst state seen in it: the state a
/// breaker moved to, and at every `drain` the state it is still in, so a breaker open for ten
/// minutes marks all ten though it moved once.
public struct CallTally: Sendable, Equatable {
    /// Upper bounds of the latency buckets, in milliseconds; one more bucket takes anything longer.
    /// Dense around Apple's usual 3–6 s, and down to 10 ms for webhook receivers and a fast fake.
    public static let latencyBoundsMilliseconds = [10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000,
                                                   4000, 5000, 6000, 8000, 10000, 15000, 30000]
    /// Buckets a row holds: one per bound and the open-ended last.
    public static var bucketCount: Int { latencyBoundsMilliseconds.count + 1 }

    /// One minute's sums for one target: a row of `receiptq.call_minutes` (less its process).
    public struct Minute: Sendable, Equatable {
        /// Seconds since 1970 at the minute's start (a multiple of 60).
        public var minute: Int
        public var target: CallTarget
        public var calls = 0
        public var failures = 0
        public var latencyBuckets = [Int](repeating: 0, count: CallTally.bucketCount)
        public var breaker = CallBreakerState.closed

        public init(minute: Int, target: CallTarget, calls: Int = 0, failures: Int = 0,
                    latencyBuckets: [Int] = [Int](repeating: 0, count: CallTally.bucketCount), breaker: CallBreakerState = .closed) {
            self.minute = minute
            self.target = target
            self.calls = calls
            self.failures = failures
            self.latencyBuckets = latencyBuckets
            self.breaker = breaker
        }

        /// Another tally of the same minute and target, added in.
        mutating func merge(_ other: Minute) {
            calls += other.calls
            failures += other.failures
            for i in latencyBuckets.indices where other.latencyBuckets.indices.contains(i) { latencyBuckets[i] += other.latencyBuckets[i] }
            breaker = max(breaker, other.breaker)
        }
    }

    struct Key: Hashable { var minute: Int; var target: CallTarget }

    private var minutes: [Key: Minute] = [:]
    private var breakers: [CallTarget: CallBreakerState] = [:]

    public init() {}

    /// The minute `time` falls in (seconds since 1970 at its start).
    public static func minute(of time: Double) -> Int { Int((time / 60).rounded(.down)) * 60 }

    /// The bucket a call of `milliseconds` falls in: the first whose bound it does not exceed.
    public static func bucket(milliseconds: Double) -> Int {
        latencyBoundsMilliseconds.firstIndex { milliseconds <= Double($0) } ?? latencyBoundsMilliseconds.count
    }

    /// One call to `target` that ended at `time` after `seconds`; `failed`: no answer, or not one the caller could use.
    public mutating func record(_ target: CallTarget, seconds: Double, failed: Bool, at time: Double) {
        let key = Key(minute: Self.minute(of: time), target: target)
        var row = minutes[key] ?? Minute(minute: key.minute, target: target)
        row.calls += 1
        if failed { row.failures += 1 }
        row.latencyBuckets[Self.bucket(milliseconds: max(0, seconds) * 1000)] += 1
        minutes[key] = row
    }

    /// `target`'s breaker is in `state` from `time` on.
    public mutating func breaker(_ target: CallTarget, _ state: CallBreakerState, at time: Double) {
        breakers[target] = state
        guard state != .closed else { return }
        mark(target, state, minute: Self.minute(of: time))
    }

    private mutating func mark(_ target: CallTarget, _ state: CallBreakerState, minute: Int) {
        let key = Key(minute: minute, target: target)
        var row = minutes[key] ?? Minute(minute: minute, target: target)
        row.breaker = max(row.breaker, state)
        minutes[key] = row
    }

    /// Everything summed so far, in (minute, target) order, and a fresh start. A breaker not closed
    /// at `time` marks `time`'s minute first.
    public mutating func drain(at time: Double) -> [Minute] {
        for (target, state) in breakers where state != .closed { mark(target, state, minute: Self.minute(of: time)) }
        let out = minutes.values.sorted { ($0.minute, $0.target) < ($1.minute, $1.target) }
        minutes.removeAll(keepingCapacity: true)
        return out
    }

    /// Rows a failed write did not store, added back so the next drain carries them.
    public mutating func restore(_ rows: [Minute]) {
        for row in rows {
            let key = Key(minute: row.minute, target: row.target)
            if var existing = minutes[key] { existing.merge(row); minutes[key] = existing } else { minutes[key] = row }
        }
    }

    /// The `q` quantile (0 < q ≤ 1) of the calls counted in `buckets`, as the upper bound of the
    /// bucket it falls in, in milliseconds; `nil` when there are none. A quantile in the open-ended
    /// last bucket reads as twice the last bound (60 s: "longer than 30 s" on a chart's scale).
    public static func quantile(_ q: Double, of buckets: [Int]) -> Int? {
        let total = buckets.reduce(0, +)
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        var seen = 0
        for (index, count) in buckets.enumerated() {
            seen += count
            if seen >= rank {
                return index < latencyBoundsMilliseconds.count ? latencyBoundsMilliseconds[index] : 2 * latencyBoundsMilliseconds[latencyBoundsMilliseconds.count - 1]
            }
        }
        return 2 * latencyBoundsMilliseconds[latencyBoundsMilliseconds.count - 1]
    }
}
