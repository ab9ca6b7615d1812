import Foundation

/// One run of one bench as the benchmark history keeps it (one JSON line of
/// docs/bench-results.jsonl): its figures, the yardstick measured in the same run, and what the
/// figures are worth against it, so that a run of another day reads beside this one.
public struct BenchRecord: Codable, Sendable, Equatable {
    /// The bench as named on the command line: `queue`, `e2e-signed`, `notifications`…
    public var bench: String
    /// Which shape of the bench ran: `default`, or a name such as `guard` (the test command's
    /// small runs). Only records of one bench, profile and build compare.
    public var profile: String
    public var commit: String
    /// `release` or `debug`.
    public var build: String
    /// ISO 8601, UTC.
    public var date: String
    public var machine: String
    public var arguments: [String]
    public var yardstick: Yardstick
    /// Named by `FigureKind`'s suffixes.
    public var figures: [String: Double]
    /// Each figure that has a yardstick unit, in it (`Yardstick.ratio`).
    public var ratios: [String: Double]

    public init(bench: String, profile: String, commit: String, build: String, date: String, machine: String,
                arguments: [String], yardstick: Yardstick, figures: [String: Double]) {
        self.bench = bench
        self.profile = profile
        self.commit = commit
        self.build = build
        self.date = date
        self.machine = machine
        self.arguments = arguments
        self.yardstick = yardstick
        self.figures = figures
        ratios = figures.reduce(into: [:]) { ratios, figure in
            if let ratio = yardstick.ratio(figure.value, kind: FigureKind(name: figure.key)) { ratios[figure.key] = ratio }
        }
    }

    /// The one JSON line, keys sorted (so the history diffs well).
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Every record of a history file's text; a line that is not a record is an error naming it.
    public static func parse(history text: String) throws -> [BenchRecord] {
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").enumerated().compactMap { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            do { return try decoder.decode(BenchRecord.self, from: Data(trimmed.utf8)) }
            catch { throw HistoryError("line \(index + 1) is not a bench record: \(error)") }
        }
    }

    /// The figures with their ratios, one per line: `  drain_per_s  11234 = 4.52 × one connection's one-row commits`.
    public func ratioLines() -> [String] {
        figures.keys.sorted().map { name in
            let value = figures[name] ?? 0
            let kind = FigureKind(name: name)
            guard let ratio = ratios[name], let unit = kind.ratioUnit else { return "  \(name)  \(format(value, 3))" }
            return "  \(name)  \(format(value, 3)) = \(format(ratio, 3)) \(unit)"
        }
    }
}

public struct HistoryError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
