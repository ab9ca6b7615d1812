import Foundation

/// The ownership model's run as a person reads it, or as one JSON object.
enum ModelReport {
    static func text(_ report: ModelRounds.Report) -> String {
        var lines = ["Ownership model: \(report.histories) histories, \(report.steps) steps in \(String(format: "%.0f", report.seconds)) s "
                     + "(first seed \(report.firstSeed))"]
        lines.append("Paths played:")
        for (path, count) in report.paths.sorted(by: { $0.key < $1.key }) { lines.append(String(format: "  %6d  %@", count, path)) }
        lines.append("Verdicts read at the end: " + report.verdicts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if report.failures.isEmpty {
            lines.append("PASS: every verdict, answer and entitlement as the model says")
        }
        for failure in report.failures {
            lines.append("FAIL: history \(failure.seed) (\(failure.steps) steps): " + failure.differences.prefix(5).joined(separator: "; "))
            if let shrunk = failure.shrunk {
                lines.append("  shrunk to \(failure.shrunkSteps ?? 0) steps in \(failure.shrinkRuns ?? 0) runs:")
                lines.append(shrunk)
                lines.append("  which reads: " + (failure.shrunkDifferences ?? []).joined(separator: "; "))
            }
            lines.append("  replay: receiptq-lab fraud --model --histories 1 --seed \(failure.seed)")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ report: ModelRounds.Report) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
