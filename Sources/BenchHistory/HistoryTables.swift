/// docs/benchmarks.md's history: one markdown table per bench, profile and build, a row per
/// recorded run, each figure as measured and (in brackets) against that run's yardstick.
/// Generated (`./Deploy/dev bench-history`), never edited by hand.
public enum HistoryTables {
    public static func markdown(_ records: [BenchRecord]) -> String {
        var groups: [String: [BenchRecord]] = [:]
        var order: [String] = []
        for record in records {
            let key = "\(record.bench) · \(record.profile) · \(record.build)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(record)
        }
        return order.map { key in table(key, groups[key] ?? []) }.joined(separator: "\n")
    }

    static func table(_ title: String, _ records: [BenchRecord]) -> String {
        let known = ReportReader.named(records.first?.bench ?? "").map { $0.figures.map(\.name) + $0.sums.map(\.name) } ?? []
        let present = Set(records.flatMap(\.figures.keys))
        let names = known.filter(present.contains) + present.subtracting(known).sorted()
        var lines = ["#### \(title)", "",
                     "| date (UTC) | commit | P-256 µs | commit µs | " + names.joined(separator: " | ") + " |",
                     "|---|---|---|---|" + names.map { _ in "---|" }.joined()]
        for record in records {
            let cells = names.map { name -> String in
                guard let value = record.figures[name] else { return "—" }
                let shown = value >= 100 ? format(value, 0) : format(value, 3)
                return record.ratios[name].map { "\(shown) (\(format($0, $0 >= 100 ? 0 : 2)))" } ?? shown
            }
            lines.append("| \(record.date.prefix(16).replacingOccurrences(of: "T", with: " ")) | \(record.commit.prefix(9)) | "
                         + "\(format(record.yardstick.p256Microseconds, 1)) | \(format(record.yardstick.commitMicroseconds, 0)) | "
                         + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
