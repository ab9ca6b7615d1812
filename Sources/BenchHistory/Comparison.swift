/// `bench compare A B`: runs of two builds taken in turn on one machine (A, B, A, B…), summed up
/// per figure — the median of each side as measured and against its own run's yardstick, B over
/// A, and the spread (largest / smallest) of each across its runs, which shows how much the
/// yardstick narrows a figure's spread.
public struct Comparison: Sendable {
    public struct Row: Sendable, Equatable {
        public var name: String
        public var a: Double, b: Double
        public var aRatio: Double?, bRatio: Double?
        /// B over A, against the yardstick where the figure has a unit for it, else as measured.
        public var change: Double
        /// Largest / smallest over both sides' runs, each side divided by its own median first.
        public var spread: Double
        public var ratioSpread: Double?
    }

    public var a: [BenchRecord]
    public var b: [BenchRecord]

    public init(a: [BenchRecord], b: [BenchRecord]) {
        self.a = a
        self.b = b
    }

    public var rows: [Row] {
        let names = Set(a.flatMap(\.figures.keys)).intersection(b.flatMap(\.figures.keys))
        let order = ReportReader.named(a.first?.bench ?? "").map { $0.figures.map(\.name) + $0.sums.map(\.name) } ?? []
        let sorted = order.filter(names.contains) + names.subtracting(order).sorted()
        return sorted.map { name in
            let aValues = a.compactMap { $0.figures[name] }, bValues = b.compactMap { $0.figures[name] }
            let aRatios = a.compactMap { $0.ratios[name] }, bRatios = b.compactMap { $0.ratios[name] }
            let am = Yardstick.medianAndSpread(aValues).median, bm = Yardstick.medianAndSpread(bValues).median
            let ar = aRatios.isEmpty ? nil : Yardstick.medianAndSpread(aRatios).median
            let br = bRatios.isEmpty ? nil : Yardstick.medianAndSpread(bRatios).median
            let change = ar.flatMap { ar in br.map { $0 / max(ar, 1e-12) } } ?? bm / max(am, 1e-12)
            func spread(_ values: [Double], _ median: Double) -> [Double] { median > 0 ? values.map { $0 / median } : [] }
            let all = spread(aValues, am) + spread(bValues, bm)
            let ratioAll = ar.map { spread(aRatios, $0) + spread(bRatios, br ?? 1) } ?? []
            return Row(name: name, a: am, b: bm, aRatio: ar, bRatio: br, change: change,
                       spread: Yardstick.medianAndSpread(all).spread,
                       ratioSpread: ratioAll.isEmpty ? nil : Yardstick.medianAndSpread(ratioAll).spread)
        }
    }

    public func markdown(aName: String, bName: String) -> String {
        var lines = ["| \(a.first?.bench ?? "bench") (\(a.count) + \(b.count) runs, medians) | \(aName) | \(bName) | \(bName) / \(aName) (yardstick) | spread as measured | spread against the yardstick |",
                     "|---|---|---|---|---|---|"]
        for row in rows {
            func cell(_ value: Double, _ ratio: Double?) -> String {
                (value >= 100 ? format(value, 0) : format(value, 3)) + (ratio.map { " (\(format($0, $0 >= 100 ? 0 : 2)))" } ?? "")
            }
            lines.append("| \(row.name) | \(cell(row.a, row.aRatio)) | \(cell(row.b, row.bRatio)) | \(format(row.change, 2))× | "
                         + "\(format(row.spread, 2))× | \(row.ratioSpread.map { format($0, 2) + "×" } ?? "—") |")
        }
        let ya = a.map(\.yardstick), yb = b.map(\.yardstick)
        lines.append("")
        lines.append("yardstick medians: \(aName) P-256 \(format(Yardstick.medianAndSpread(ya.map(\.p256Microseconds)).median, 1)) µs, "
                     + "commit \(format(Yardstick.medianAndSpread(ya.map(\.commitMicroseconds)).median, 0)) µs; "
                     + "\(bName) P-256 \(format(Yardstick.medianAndSpread(yb.map(\.p256Microseconds)).median, 1)) µs, "
                     + "commit \(format(Yardstick.medianAndSpread(yb.map(\.commitMicroseconds)).median, 0)) µs")
        return lines.joined(separator: "\n")
    }
}
