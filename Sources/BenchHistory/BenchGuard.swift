/// The test command's guard of a hot path: this run's figures against the last recorded runs of the
/// same bench, profile and build (the median of up to three, so one lucky run does not set the
/// bar), each compared as a ratio to its own run's yardstick (so a slow day moves both sides of
/// the division), failing when one is `factor` times worse.
///
/// Pure: the lab measures and reads the history; this decides.
public struct BenchGuard: Sendable {
    public var factor: Double

    public init(factor: Double = 1.5) { self.factor = factor }

    public struct Finding: Sendable, Equatable {
        public var name: String
        /// Against the yardstick where the figure has a unit for it, else the figure itself.
        public var recorded: Double
        public var now: Double
        /// How many times worse (below 1: better).
        public var worse: Double
        public var regressed: Bool
    }

    public enum Verdict: Sendable, Equatable {
        case passed([Finding])
        case regressed([Finding])
        /// Nothing recorded to compare with, or a guarded figure missing from this run.
        case cannotCompare(String)
    }

    /// The records this run is compared with: the last `count` of `history` with the same bench, profile and build.
    public static func baseline(for run: BenchRecord, in history: [BenchRecord], count: Int = 3) -> [BenchRecord] {
        Array(history.filter { $0.bench == run.bench && $0.profile == run.profile && $0.build == run.build }.suffix(count))
    }

    public func check(_ run: BenchRecord, against baseline: [BenchRecord], guarded names: [String]) -> Verdict {
        guard !baseline.isEmpty else {
            return .cannotCompare("no recorded \(run.bench) run of profile \(run.profile) in a \(run.build) build to compare with")
        }
        var findings: [Finding] = []
        for name in names {
            let recorded = baseline.compactMap { Self.comparable(name, in: $0) }
            guard !recorded.isEmpty else { continue }   // not recorded then: nothing to guard yet
            let then = Yardstick.medianAndSpread(recorded).median
            guard let now = Self.comparable(name, in: run) else { return .cannotCompare("this run has no \(name), recorded \(baseline.last?.date ?? "")") }
            let worse = FigureKind(name: name).lowerIsBetter ? now / max(then, 1e-12) : then / max(now, 1e-12)
            findings.append(Finding(name: name, recorded: then, now: now, worse: worse, regressed: worse > factor))
        }
        if findings.isEmpty { return .cannotCompare("none of the guarded figures (\(names.joined(separator: ", "))) was recorded") }
        return findings.contains(where: \.regressed) ? .regressed(findings) : .passed(findings)
    }

    static func comparable(_ name: String, in record: BenchRecord) -> Double? {
        record.ratios[name] ?? (FigureKind(name: name).ratioUnit == nil ? record.figures[name] : nil)
    }
}
