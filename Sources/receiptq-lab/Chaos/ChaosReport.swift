import CommandSupport
import Foundation

/// Everything a chaos run did and found: printed as tables, or as one JSON object with `--json`.
struct ChaosReport: Sendable, Codable {
    var faultSeconds: Double
    var workers: Int
    var purchasesPerSecond: Double
    var appleLatency: String
    var recoverySeconds: Double
    var recoveryBoundSeconds: Double
    var acceptSecondsP50: Double
    var acceptSecondsP99: Double
    var clientAnswers: [String: Int]
    var faults: [ChaosInjector.Record]
    var appleOutages: [ChaosAppleRate.Window]
    var appleAnswers: [String: Int]
    var abuse: ChaosAbuse.Figures
    var crashes: [ChaosProcesses.Crash]
    var invariants: [ChaosInvariant]
    var logDirectory: String

    var passed: Bool { invariants.allSatisfy(\.held) }

    func text() -> String {
        var lines = ["chaos: \(Int(faultSeconds)) s of faults, \(workers) workers, \(Int(purchasesPerSecond)) purchases/s, Apple at \(appleLatency)", "",
                     "faults injected"]
        // Process, database and Apple faults on one timeline.
        var timeline = faults.map { ($0.atSeconds, "\($0.ok ? "✔" : "✘") \($0.fault): \($0.detail)") }
        timeline += appleOutages.map { ($0.startSeconds, "✔ Apple outage (\($0.kind)) for \(Int($0.endSeconds - $0.startSeconds)) s") }
        for (at, line) in timeline.sorted(by: { $0.0 < $1.0 }) {
            lines.append("  \(Self.seconds(at))  \(line)")
        }
        let random = ["21005", "21199", "hang"].map { "\(appleAnswers[$0] ?? 0) × \($0)" }.joined(separator: ", ")
        lines.append("  throughout  ✔ Apple random faults: \(random)")
        lines.append("  abuse       ✔ \(abuse.slowConnections) slowloris connections, \(abuse.oversizeSent) oversize bodies, \(abuse.garbageSent) garbage bodies")
        lines += ["", "invariants"]
        for invariant in invariants {
            lines.append("  \(invariant.held ? "✔" : "✘") \(invariant.name): \(invariant.figure)")
        }
        lines += ["", "figures",
                  String(format: "  recovery after faults stopped   %.1f s (bound %.0f s: longest outage + 2 × lease)", recoverySeconds, recoveryBoundSeconds),
                  String(format: "  time to a 202 p50 / p99         %.3f s / %.3f s (retries through restarts included)", acceptSecondsP50, acceptSecondsP99),
                  "  client answers                  " + clientAnswers.sorted { $0.key < $1.key }.map { "\($0.key == "0" ? "no answer" : $0.key) × \($0.value)" }.joined(separator: ", "),
                  "  logs                            \(logDirectory)",
                  "", passed ? "chaos: every invariant held" : "chaos: \(invariants.filter { !$0.held }.count) invariant(s) broken"]
        return lines.joined(separator: "\n")
    }

    private static func seconds(_ value: Double) -> String {
        let text = String(format: "%.1f s", value)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
