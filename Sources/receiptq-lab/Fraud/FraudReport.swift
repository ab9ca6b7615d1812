import Foundation

/// What a fraud run did and found: a table of attacks and outcomes and the invariants, or one
/// JSON object with `--json`.
struct FraudReport: Sendable, Codable {
    /// One attack (per verifier for receipts) over all rounds.
    struct Row: Sendable, Codable {
        var attack: String
        var summary: String
        /// What stops it: the expected outcome (`FraudAttack.defence`).
        var defence: String
        var plays: Int
        var attackerMoves: Int
        /// What the attackers (or forged statements) were told, by outcome.
        var attackersRead: [String: Int]
        var grants: FraudLedger.AttackGrants
        var payersDelivered: Int
        var payers: Int
        var held: Bool
    }

    var rounds: Int
    var seconds: Double
    var appleLatency: String
    var submissions: Int
    var rows: [Row]
    var invariants: [ChaosInvariant]
    /// The first moves that went otherwise than the threat model allows.
    var unexpected: [String]
    var logDirectory: String

    /// Every invariant held and every attack was defended (any row failing fails the run).
    var passed: Bool { invariants.allSatisfy(\.held) && rows.allSatisfy(\.held) }

    init(tally: FraudTally.State, ledger: FraudLedger, invariants: [ChaosInvariant], rounds: Int, seconds: Double, appleLatency: String, logDirectory: String) {
        self.rounds = rounds
        self.seconds = seconds
        self.appleLatency = appleLatency
        self.logDirectory = logDirectory
        submissions = tally.submissions.count
        self.invariants = invariants
        let perAttack = ledger.perAttack(tally)
        let labels = FraudAttack.allCases.flatMap { attack in
            attack.perVerifier ? FraudFleet.Verifier.allCases.map { "\(attack.rawValue) @\($0.rawValue)" } : [attack.rawValue]
        }
        rows = labels.compactMap { label in
            let attack = FraudAttack(rawValue: String(label.split(separator: " ")[0]))
            let moves = tally.submissions.filter { $0.attack == label }
            guard !moves.isEmpty else { return nil }
            let attackerMoves = moves.filter { $0.actor == .attacker }
            let payerJobs = tally.payerJobs.filter { $0.attack == label }
            let delivered = payerJobs.filter { job in moves.contains { $0.jobID == job.jobID && $0.actor == .payer && $0.outcome == "delivered" } }
            let grants = perAttack[label] ?? .init()
            let held = moves.allSatisfy(\.asExpected) && tally.checks.filter { $0.attack == label }.allSatisfy(\.held)
                && tally.rereads.filter { $0.attack == label }.allSatisfy(\.held) && grants.extra == 0 && grants.toPayers == grants.paid
            return Row(attack: label, summary: attack?.summary ?? "", defence: attack?.defence ?? "", plays: Set(moves.map(\.round)).count, attackerMoves: attackerMoves.count,
                       attackersRead: Dictionary(attackerMoves.map { ($0.outcome, 1) }, uniquingKeysWith: +), grants: grants,
                       payersDelivered: delivered.count, payers: payerJobs.count, held: held)
        }
        unexpected = Array((tally.submissions.filter { !$0.asExpected }.map {
            "round \($0.round) \($0.attack): \($0.actor.rawValue) \($0.user) — \($0.move): read \($0.outcome), allowed \($0.allowed.joined(separator: " | "))"
        } + tally.checks.filter { !$0.held }.map { "\($0.attack): \($0.name): \($0.figure)" }
          + tally.rereads.filter { !$0.held }.map { "round \($0.round) \($0.attack): \($0.actor.rawValue) \($0.user) job \($0.jobID) reads \($0.verdict) at the end" })
            .prefix(20))
    }

    func text() -> String {
        var lines = ["fraud: \(rounds) round\(rounds == 1 ? "" : "s") of every attack, Apple at \(appleLatency), "
                     + String(format: "%.1f s, %d moves", seconds, submissions), ""]
        // Per attack: what it is, what must stop it, what was observed, whether the defence held.
        for row in rows {
            let read = Self.histogram(row.attackersRead)
            var observed = ["attackers read " + (read.isEmpty ? "–" : read)]
            if row.grants.paid > 0 || row.grants.extra > 0 {
                observed.append("grants \(row.grants.toPayers)/\(row.grants.paid) to payers, \(row.grants.extra) extra")
            }
            if row.payers > 0 { observed.append("payers delivered \(row.payersDelivered)/\(row.payers)") }
            lines += ["\(row.held ? "PASS" : "FAIL")  \(row.attack)  (\(row.plays) play\(row.plays == 1 ? "" : "s"), \(row.attackerMoves) attacker move\(row.attackerMoves == 1 ? "" : "s"))",
                      "      attack:   \(row.summary)",
                      "      defence:  \(row.defence)",
                      "      observed: \(observed.joined(separator: "; "))"]
        }
        let failed = rows.filter { !$0.held }.count
        lines += ["", "attacks: \(rows.count) played, \(rows.count - failed) defended, \(failed) not"]
        lines += ["", "invariants"]
        for invariant in invariants { lines.append("  \(invariant.held ? "✔" : "✘") \(invariant.name): \(invariant.figure)") }
        if !unexpected.isEmpty {
            lines += ["", "unexpected (first \(unexpected.count))"] + unexpected.map { "  \($0)" }
        }
        lines += ["", "  logs: \(logDirectory)", "",
                  passed ? "fraud: every attack defended, every invariant held"
                      : "fraud: \(failed) attack(s) not defended, \(invariants.filter { !$0.held }.count) invariant(s) broken"]
        return lines.joined(separator: "\n")
    }

    /// `outcome × count, …`, most frequent first.
    static func histogram(_ counts: [String: Int], top: Int = .max) -> String {
        let sorted = counts.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }
        return sorted.prefix(top).map { "\($0.key) × \($0.value)" }.joined(separator: ", ")
    }

    static func histogram(_ outcomes: [String], top: Int = .max) -> String {
        histogram(Dictionary(outcomes.map { ($0, 1) }, uniquingKeysWith: +), top: top)
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
