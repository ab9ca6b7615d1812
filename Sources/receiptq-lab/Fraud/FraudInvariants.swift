/// The invariants about the attacks themselves (the ledger's are `FraudLedger.invariants`): each
/// move went as the threat model allows, the forged statements were refused or harmless, the
/// limiter never refused a valid token, and the fleet was whole throughout.
extension FraudTally.State {
    func playInvariants(pinned: Bool, processesAlive: Bool) -> [ChaosInvariant] {
        let special: Set<String> = [FraudAttack.roleScheduler.rawValue, FraudAttack.roleAPI.rawValue, FraudAttack.limiterLockout.rawValue]
        func part(_ attacks: Set<String>?, _ name: String) -> ChaosInvariant {
            func inPart(_ attack: String) -> Bool {
                guard let attacks else { return !special.contains(attack) }
                return attacks.contains(attack)
            }
            let moves = submissions.filter { inPart($0.attack) }
            let wrongMoves = moves.filter { !$0.asExpected }.count
            let wrongChecks = checks.filter { inPart($0.attack) && !$0.held }.count
            let wrongRereads = rereads.filter { inPart($0.attack) && !$0.held }.count
            let wrong = wrongMoves + wrongChecks + wrongRereads
            return ChaosInvariant(name: name, held: wrong == 0 && !moves.isEmpty,
                                  figure: "\(moves.count) moves, \(wrong) not as allowed; \(FraudReport.histogram(moves.map(\.outcome), top: 4))")
        }
        return [
            part(nil, "every attack went as the threat model allows (each move's outcome, each job read again at the end)"),
            part([FraudAttack.roleScheduler.rawValue, FraudAttack.roleAPI.rawValue],
                 "role abuse: every forged statement refused by PostgreSQL, or harmless to every verdict"),
            part([FraudAttack.limiterLockout.rawValue], "the auth limiter locks out bad tokens, never a valid one from the same address"),
            ChaosInvariant(name: "each receipt attack met each verifier alone (the other worker paused while idle)", held: pinned,
                           figure: pinned ? "verify-receipt, then server-api, every round" : "a worker could not be paused idle"),
            ChaosInvariant(name: "no process died", held: processesAlive, figure: processesAlive ? "fake App Store, API, 2 workers, scheduler running" : "a child exited"),
        ]
    }
}
