import ArgumentParser

/// Durations on the command line and in the environment: `500ms`, `2s`, `5m`, `72h`, `30d`.
/// Values beyond 100 years are refused rather than overflowing.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for (suffix, seconds) in units where argument.hasSuffix(suffix) {
            guard let value = Double(argument.dropLast(suffix.count)), value >= 0, value.isFinite,
                  value * seconds <= 100 * 365 * 86_400 else { return nil }
            self = .milliseconds(Int64((value * seconds * 1000).rounded()))
            return
        }
        return nil
    }

    public static var defaultCompletionKind: CompletionKind { .default }

    /// As `--help` shows a default: valid input again (`15s`, not "15.0 seconds").
    public var defaultValueDescription: String { argumentText }

    /// An exact spelling in the units above, the largest that fits (days only from a week on, so
    /// a deadline reads `72h`): `500ms`, `15s`, `5m`, `72h`, `30d`.
    public var argumentText: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        for (suffix, unit) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds >= (suffix == "d" ? 7 * unit : unit) && milliseconds % unit == 0 {
            return "\(milliseconds / unit)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}
