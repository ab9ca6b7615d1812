/// What a bench figure measures, read from its name's suffix, so that a figure's name is the one
/// home of its unit, its ratio to the yardstick and which way is better:
///
/// | suffix | unit | against the yardstick | better |
/// |---|---|---|---|
/// | `_cpu_ms` | CPU milliseconds per unit of work (any process) | P-256 verifications | lower |
/// | `_wall_ms` | wall milliseconds (a latency) | one-row commits | lower |
/// | `_per_s` | a rate | one connection's one-row commits in that second | higher |
/// | `_mb` | megabytes (memory) | — | lower |
/// | anything else | a ratio or a count | — | higher |
public enum FigureKind: String, Sendable, CaseIterable {
    case cpuMilliseconds, wallMilliseconds, perSecond, megabytes, plain

    public init(name: String) {
        if name.hasSuffix("_cpu_ms") { self = .cpuMilliseconds }
        else if name.hasSuffix("_wall_ms") { self = .wallMilliseconds }
        else if name.hasSuffix("_per_s") { self = .perSecond }
        else if name.hasSuffix("_mb") { self = .megabytes }
        else { self = .plain }
    }

    /// A cost: less is better.
    public var lowerIsBetter: Bool { self == .cpuMilliseconds || self == .wallMilliseconds || self == .megabytes }

    /// The yardstick unit a ratio of this kind counts in.
    public var ratioUnit: String? {
        switch self {
        case .cpuMilliseconds: "P-256 verifications"
        case .wallMilliseconds: "one-row commits"
        case .perSecond: "× one connection's one-row commits"
        case .megabytes, .plain: nil
        }
    }
}
