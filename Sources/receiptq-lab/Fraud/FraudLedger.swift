import Postgres

/// The ledger after the run, read through SQL as ops would (and the attackers' grants through the
/// API as a backend would), against the tally: whose each purchase must be.
struct FraudLedger {
    struct Grant: Sendable {
        var transactionID: String
        var user: String
        var revoked: Bool
    }

    /// One attack's purchases in the ledger.
    struct AttackGrants: Sendable, Codable {
        /// Purchases its payers proved.
        var paid = 0
        /// Grants of those purchases to their payers.
        var toPayers = 0
        /// Grants to anyone else: another user, an attacker, a purchase nobody proved.
        var extra = 0
    }

    let grants: [Grant]
    /// Events of users who only ever attacked that only an owner may get.
    let attackerEvents: Int
    /// Grants the API lists for users who only ever attacked.
    let attackerGrantsListed: Int

    static func read(pool: PostgresPool, tally: FraudTally.State, backend: FraudBackend) async throws -> FraudLedger {
        let grants = try await pool.query("SELECT transaction_id, user_id, revoked_at IS NOT NULL AS revoked FROM receiptq.grants").map {
            Grant(transactionID: try $0.decode("transaction_id"), user: try $0.decode("user_id"), revoked: try $0.decode("revoked"))
        }
        let attackers = Array(onlyAttackers(tally))
        let events: Int = try await pool.query("""
            SELECT count(*) AS n FROM receiptq.events
            WHERE user_id = ANY($1) AND (type IN ('verdict.delivered', 'verdict.already_delivered', 'verdict.revoked') OR type LIKE 'grant.%')
            """, [attackers])[0].decode("n")
        var listed = 0
        for attacker in attackers { listed += await backend.grantCount(of: attacker) ?? 1 }   // unreadable counts against
        return FraudLedger(grants: grants, attackerEvents: events, attackerGrantsListed: listed)
    }

    /// Users who never paid for anything in the run: the attackers' own accounts.
    static func onlyAttackers(_ tally: FraudTally.State) -> Set<String> {
        tally.attackers.subtracting(tally.grants.values.filter(\.required).map(\.user))
    }

    /// A grant no payer is owed: an unexpected purchase, or one held by the wrong user.
    func isExtra(_ grant: Grant, _ tally: FraudTally.State) -> Bool {
        guard let expected = tally.grants[grant.transactionID] else { return true }
        return expected.user != grant.user
    }

    func perAttack(_ tally: FraudTally.State) -> [String: AttackGrants] {
        var rows: [String: AttackGrants] = [:]
        for expected in tally.grants.values where expected.required { rows[expected.attack, default: .init()].paid += 1 }
        for grant in grants {
            let attack = tally.grants[grant.transactionID]?.attack ?? "unknown purchases"
            if isExtra(grant, tally) { rows[attack, default: .init()].extra += 1 } else { rows[attack, default: .init()].toPayers += 1 }
        }
        return rows
    }

    func invariants(_ tally: FraudTally.State) -> [ChaosInvariant] {
        let attackers = Self.onlyAttackers(tally)
        let readOwning = tally.submissions.filter { $0.actor == .attacker && FraudAnswer.owning.contains($0.outcome) }.count
        let rereadOwning = tally.rereads.filter { $0.actor == .attacker && FraudAnswer.owning.contains($0.verdict) }.count
        let grantedToAttackers = grants.filter { attackers.contains($0.user) && isExtra($0, tally) }.count
        let extra = grants.filter { isExtra($0, tally) }
        let byUser = Dictionary(grants.map { ($0.transactionID, $0) }) { first, _ in first }
        let required = tally.grants.values.filter(\.required)
        let missing = required.filter { byUser[$0.transactionID]?.user != $0.user }
        let payerJobs = tally.rereads.filter { $0.actor == .payer }
        let payersWrong = payerJobs.filter { !$0.held }
        let firstWrong = tally.payerJobs.filter { job in
            !tally.submissions.contains { $0.jobID == job.jobID && $0.actor == .payer && $0.outcome == "delivered" }
        }
        let revokedWrong = tally.grants.values.filter { byUser[$0.transactionID].map(\.revoked) ?? $0.revoked != $0.revoked }
        let refunded = tally.grants.values.filter(\.revoked).count
        return [
            ChaosInvariant(
                name: "0 deliveries to non-payers: no attacker reads delivered, already_delivered or revoked, now or later; no such event; no grant",
                held: readOwning + rereadOwning + attackerEvents + grantedToAttackers + attackerGrantsListed == 0,
                figure: "\(readOwning) answers and \(rereadOwning) re-reads, \(attackerEvents) events, \(grantedToAttackers) grants "
                    + "(\(attackerGrantsListed) listed by the API) for \(attackers.count) attacker accounts"),
            ChaosInvariant(
                name: "0 extra grants: exactly one grant per paid purchase, owned by its payer",
                held: extra.isEmpty && grants.count == Set(grants.map(\.transactionID)).count,
                figure: "\(grants.count) grants for \(required.count) paid purchases; \(extra.count) extra"
                    + (extra.isEmpty ? "" : " (e.g. \(extra[0].transactionID) to \(extra[0].user))")),
            ChaosInvariant(
                name: "every payer delivered: their job read delivered, and reads it at the end of the round (revoked after a refund)",
                held: missing.isEmpty && payersWrong.isEmpty && firstWrong.isEmpty && payerJobs.count == tally.payerJobs.count,
                figure: "\(tally.payerJobs.count - firstWrong.count)/\(tally.payerJobs.count) delivered; \(payerJobs.count - payersWrong.count) "
                    + "read as they must at the end (\(refunded) revoked); \(missing.count) paid purchases not in the ledger as their payer's"
                    + (payersWrong.first.map { "; e.g. \($0.user) job \($0.jobID) reads \($0.verdict)" } ?? "")),
            ChaosInvariant(
                name: "a refund revokes its grant; nothing else is revoked",
                held: revokedWrong.isEmpty, figure: "\(refunded) refunded, \(revokedWrong.count) wrong"),
        ]
    }
}
