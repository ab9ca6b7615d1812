import Foundation

/// This machine, today, measured in the same run as a bench: what one unit of CPU work and one
/// PostgreSQL commit cost right now. The same machine kind ran 1.8–2.5× slower one day than another
/// (issue 44), so a bench's cost says little on its own; divided by the yardstick measured beside
/// it, it says what a change did. Measured by the lab (`receiptq-lab yardstick`); this is the
/// figure and its arithmetic.
///
/// - `p256Microseconds`: CPU time of one P-256 ECDSA verification (swift-crypto, BoringSSL) on one
///   thread, the fastest of its runs — the work the product does for every signed transaction, and
///   pure CPU.
/// - `commitMicroseconds`: wall time of a one-row UPDATE and its commit on one connection, the
///   fastest of its runs — `bench queue`'s baseline, the price of a durable write.
///
/// The fastest, not the median: on this machine P-256 is bimodal, ~72 µs or ~105 µs from one run
/// to the next, while the benches' costs did not follow it — a median that landed in the other
/// mode moved every ratio by 1.4× (a guard read 1.41× with the bench's own costs unchanged).
/// Other work only ever adds time, so the fastest of many runs is the machine's speed; a slow day
/// slows the fastest run too.
public struct Yardstick: Sendable, Codable, Equatable {
    public var p256Microseconds: Double
    public var commitMicroseconds: Double
    /// The spread of the runs (max / min), each: how steady the machine was while measuring.
    public var p256Spread: Double
    public var commitSpread: Double

    public init(p256Microseconds: Double, commitMicroseconds: Double, p256Spread: Double = 1, commitSpread: Double = 1) {
        self.p256Microseconds = p256Microseconds
        self.commitMicroseconds = commitMicroseconds
        self.p256Spread = p256Spread
        self.commitSpread = commitSpread
    }

    /// A figure of `kind` as a multiple of this yardstick's unit (nil: a kind without one).
    /// CPU per unit of work → P-256 verifications; wall time → one-row commits; a rate → what one
    /// connection's one-row commits would do in the same second.
    public func ratio(_ value: Double, kind: FigureKind) -> Double? {
        switch kind {
        case .cpuMilliseconds: p256Microseconds > 0 ? value * 1000 / p256Microseconds : nil
        case .wallMilliseconds: commitMicroseconds > 0 ? value * 1000 / commitMicroseconds : nil
        case .perSecond: value * commitMicroseconds / 1e6
        case .megabytes, .plain: nil
        }
    }

    /// The yardstick of a run measured before and after its work: the faster of the two (twice
    /// the runs to find the machine's speed in); the spread is the widest of the two runs' own
    /// and of before against after, so a machine that changed during the bench shows.
    public static func bracketing(before: Yardstick, after: Yardstick) -> Yardstick {
        func apart(_ a: Double, _ b: Double) -> Double { min(a, b) > 0 ? max(a, b) / min(a, b) : 1 }
        return Yardstick(p256Microseconds: min(before.p256Microseconds, after.p256Microseconds),
                         commitMicroseconds: min(before.commitMicroseconds, after.commitMicroseconds),
                         p256Spread: max(before.p256Spread, after.p256Spread, apart(before.p256Microseconds, after.p256Microseconds)),
                         commitSpread: max(before.commitSpread, after.commitSpread, apart(before.commitMicroseconds, after.commitMicroseconds)))
    }

    /// The fastest (smallest) of `values` and their spread (max / min).
    public static func fastestAndSpread(_ values: [Double]) -> (fastest: Double, spread: Double) {
        guard let low = values.min(), let high = values.max() else { return (0, 1) }
        return (low, low > 0 ? high / low : 1)
    }

    /// The median of `values` and their spread (max / min).
    public static func medianAndSpread(_ values: [Double]) -> (median: Double, spread: Double) {
        let sorted = values.sorted()
        guard let low = sorted.first, let high = sorted.last else { return (0, 1) }
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return (median, low > 0 ? high / low : 1)
    }

    public var line: String {
        "yardstick: one P-256 verification \(format(p256Microseconds, 1)) µs of CPU (spread \(format(p256Spread, 2))×), "
            + "one one-row commit \(format(commitMicroseconds, 0)) µs (spread \(format(commitSpread, 2))×)"
    }
}

func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
