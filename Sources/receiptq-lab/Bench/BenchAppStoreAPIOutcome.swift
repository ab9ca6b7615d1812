import Foundation

/// What `bench appstore-api` measured, summed over the caller processes.
struct BenchAppStoreAPIOutcome {
    let processes: Int
    let concurrency: Int
    let rate: Double
    let reports: [BenchAppStoreAPICaller.Report]

    var seconds: Int { reports.first?.ok.count ?? 0 }
    private func sum(_ series: KeyPath<BenchAppStoreAPICaller.Report, [Int]>, from first: Int = 0) -> Int {
        reports.reduce(0) { $0 + $1[keyPath: series].dropFirst(first).reduce(0, +) }
    }
    var perSecond: [Int] { (0..<seconds).map { second in reports.reduce(0) { $0 + $1.ok[second] } } }
    var okRate: Double { Double(sum(\.ok)) / Double(max(1, seconds)) }
    /// Answers per second after the first second (the buckets start empty).
    var steadyRate: Double { Double(sum(\.ok, from: 1)) / Double(max(1, seconds - 1)) }

    func text(fakeCounts: (ok: Int, rateLimited: Int)) -> String {
        let steady = perSecond.dropFirst()
        return """
            bench appstore-api: \(processes) processes × \(concurrency) in flight, Get Transaction Info, fake limited to \(format(rate))/s, \
            budget \(format(rate))/s, \(seconds) s
              answered:          \(sum(\.ok)) = \(format(okRate))/s; after the first second \(format(steadyRate))/s \
            (\(format(100 * steadyRate / rate))% of the budget; goal ≥ 94%: \(steadyRate >= 0.94 * rate ? "met" : "NOT met"))
              per second:        min \(steady.min() ?? 0), max \(steady.max() ?? 0) after the first second; first second \(perSecond.first ?? 0)
              429 received:      \(sum(\.rateLimited)) (\(sum(\.rateLimited, from: 1)) after the first second; goal 0: \
            \(sum(\.rateLimited, from: 1) == 0 ? "met" : "NOT met"))
              other failures:    \(sum(\.failed))\(reports.compactMap(\.lastError).first.map { " (last: \($0))" } ?? "")
              per process:       \(reports.map { String($0.ok.reduce(0, +)) }.joined(separator: ", "))
              the fake counted:  \(fakeCounts.ok) answered (calls still in flight at the end included), \(fakeCounts.rateLimited) × 429
            """
    }

    func json(fakeCounts: (ok: Int, rateLimited: Int)) -> String {
        let object: [String: Any] = [
            "processes": processes, "concurrency": concurrency, "rate": rate, "seconds": seconds,
            "ok": sum(\.ok), "ok_per_second": okRate, "steady_per_second": steadyRate,
            "rate_limited": sum(\.rateLimited), "rate_limited_after_first_second": sum(\.rateLimited, from: 1),
            "failed": sum(\.failed), "per_second": perSecond, "fake_ok": fakeCounts.ok, "fake_rate_limited": fakeCounts.rateLimited,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
