import Foundation

/// Reads a bench's figures from the report it prints: the one home of every recorded figure's name.
///
/// Why from the text and not from the bench's structs: `bench compare` runs the benches of other
/// commits — their own lab, as they were — and the same reader reads both sides, so two commits
/// are measured by one instrument; a bench run with `--record` is read by it too, so a figure
/// has one name in the history, the guards and the comparisons. The reports' labels have stayed
/// put since the benches were written (cbd562f reads as HEAD does); a label that moves breaks
/// `BenchHistoryTests`, and a required figure missing from a report is an error, never a silent gap.
public struct ReportReader: Sendable {
    /// One figure: the first match of `pattern` (capture `group`), times `scale`.
    public struct Figure: Sendable {
        public var name: String
        public var pattern: String
        public var group: Int
        public var scale: Double
        /// Of the numbers in the captured text, the largest (peak RSS of several workers).
        public var largestNumber: Bool
        public var required: Bool
        /// The test command's guard compares this one with the recorded figure.
        public var guarded: Bool

        public init(_ name: String, _ pattern: String, group: Int = 1, scale: Double = 1, largestNumber: Bool = false,
                    required: Bool = true, guarded: Bool = false) {
            self.name = name
            self.pattern = pattern
            self.group = group
            self.scale = scale
            self.largestNumber = largestNumber
            self.required = required
            self.guarded = guarded
        }
    }

    /// A figure made of others, after reading (its parts must all be there).
    public struct Sum: Sendable {
        public var name: String
        public var parts: [String]
        public var guarded: Bool
    }

    public var bench: String
    public var figures: [Figure]
    public var sums: [Sum]

    public var guardedNames: [String] { figures.filter(\.guarded).map(\.name) + sums.filter(\.guarded).map(\.name) }

    public func read(_ report: String) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for figure in figures {
            let regex = try NSRegularExpression(pattern: figure.pattern)
            let range = NSRange(report.startIndex..., in: report)
            guard let match = regex.firstMatch(in: report, range: range), match.numberOfRanges > figure.group,
                  let captured = Range(match.range(at: figure.group), in: report) else {
                if figure.required { throw HistoryError("bench \(bench): the report has no \(figure.name) (/\(figure.pattern)/)") }
                continue
            }
            let text = String(report[captured])
            let value: Double?
            if figure.largestNumber {
                value = text.split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }.max()
            } else {
                value = Double(text.trimmingCharacters(in: .whitespaces))
            }
            guard let value else { throw HistoryError("bench \(bench): \(figure.name) is not a number: \(text)") }
            values[figure.name] = value * figure.scale
        }
        for sum in sums {
            let parts = sum.parts.compactMap { values[$0] }
            if parts.count == sum.parts.count { values[sum.name] = parts.reduce(0, +) }
        }
        return values
    }

    /// The reader of `bench` (`queue`, `e2e-receipts`, `e2e-signed`, `notifications`, `webhooks`).
    public static func named(_ bench: String) -> ReportReader? { all.first { $0.bench == bench } }

    public static let all: [ReportReader] = [queue, e2eReceipts, e2eSigned, notifications, webhooks]

    static let number = #"([0-9]+(?:\.[0-9]+)?)"#

    public static let queue = ReportReader(bench: "queue", figures: [
        Figure("enqueue_per_s", #"enqueue\s+"# + number + " jobs/s"),
        Figure("drain_per_s", #"drain \(claim \+ complete\)\s+"# + number + " jobs/s"),
        Figure("drain_postgres_cpu_ms", "PostgreSQL CPU " + number + " µs per job", scale: 0.001, required: false, guarded: true),
        Figure("baseline_per_s", #"baseline \(1-row UPDATE \+ commit\)\s+"# + number + " jobs/s"),
        Figure("drain_over_baseline", #"drain / baseline\s+"# + number + "×", guarded: true),
    ], sums: [])

    public static let e2eReceipts = ReportReader(bench: "e2e-receipts", figures: [
        Figure("receipts_per_s", #"receipts/s \(enqueue → terminal\)\s+"# + number + " overall"),
        Figure("steady_receipts_per_s", "overall [^\n]*?, " + number + " steady"),
        Figure("grant_p50_wall_ms", #"time to grant p50 / p99\s+"# + number + " s", scale: 1000),
        Figure("grant_p99_wall_ms", #"time to grant p50 / p99\s+[0-9.]+ s / "# + number + " s", scale: 1000),
        Figure("peak_rss_mb", #"peak RSS per worker\s+([^\n]*)"#, largestNumber: true, guarded: true),
        // Seconds per 1,000 verifications are milliseconds per verification.
        Figure("worker_cpu_ms", #"CPU per 1,000 verifications\s+"# + number + " s", guarded: true),
        Figure("postgres_cpu_ms", #"PostgreSQL CPU per receipt\s+"# + number + " ms", required: false, guarded: true),
    ], sums: [])

    public static let e2eSigned = ReportReader(bench: "e2e-signed", figures: [
        Figure("granted_per_s", #"granted/s \(first submission → last grant\)\s+"# + number),
        Figure("grant_p50_wall_ms", #"time to grant p50 / p99\s+"# + number + " ms"),
        Figure("grant_p99_wall_ms", #"time to grant p50 / p99\s+[0-9.]+ ms / "# + number + " ms"),
        Figure("worker_cpu_ms", #"worker CPU per transaction\s+"# + number + " ms", guarded: true),
        Figure("jws_cpu_ms", #"JWS verification per transaction\s+"# + number + " ms"),
        Figure("postgres_cpu_ms", #"PostgreSQL CPU per transaction\s+"# + number + " ms", guarded: true),
        Figure("machine_cpu_ms", #"whole machine CPU per transaction\s+"# + number + " ms"),
        Figure("peak_rss_mb", #"peak RSS per worker\s+([^\n]*)"#, largestNumber: true),
    ], sums: [])

    public static let notifications = ReportReader(bench: "notifications", figures: [
        Figure("intake_per_s", #"group commit\s+"# + number + " accepted/s"),
        Figure("intake_api_cpu_ms", "CPU ms per notification: bench process [0-9.]+, API child " + number, required: false, guarded: true),
        Figure("intake_postgres_cpu_ms", "CPU ms per notification: bench process [^\n]*?PostgreSQL " + number, guarded: true),
        Figure("intake_machine_cpu_ms", "CPU ms per notification: bench process [^\n]*?whole machine " + number),
        Figure("group_over_baseline", #"group / baseline\s+"# + number + "×"),
        Figure("applied_per_s", number + " applied/s", required: false),
        Figure("apply_worker_cpu_ms", "CPU ms per notification: workers " + number, required: false),
        Figure("apply_postgres_cpu_ms", "CPU ms per notification: workers [0-9.]+, PostgreSQL " + number, required: false),
    ], sums: [Sum(name: "apply_cpu_ms", parts: ["apply_worker_cpu_ms", "apply_postgres_cpu_ms"], guarded: true)])

    public static let webhooks = ReportReader(bench: "webhooks", figures: [
        Figure("delivered_per_s", "workers started, " + number + " events/s"),
        Figure("deliver_worker_cpu_ms", "CPU ms per event: workers " + number, required: false, guarded: true),
        Figure("deliver_postgres_cpu_ms", "CPU ms per event: workers [0-9.]+, PostgreSQL " + number, required: false, guarded: true),
        Figure("idle_p50_wall_ms", "one at a time: p50 " + number + " ms"),
        Figure("idle_p99_wall_ms", "one at a time: p50 [0-9]+ ms, p99 " + number + " ms"),
    ], sums: [])
}
