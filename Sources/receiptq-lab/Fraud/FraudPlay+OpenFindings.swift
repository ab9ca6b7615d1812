import Postgres

/// Attacks that break an invariant on main today (f673e24), played only with `--open-findings`:
/// each reproduces a hole reported for the lead to close, and joins every run once it is closed.
extension FraudPlay {
    /// The scheduler's login may write any state with a ledger row or none: `rejected` (or
    /// `owned_elsewhere`) on a payer's delivered job makes it read `not_paid` (or
    /// `owned_by_another_user`), which tells the app to finish the transaction and deliver nothing.
    func schedulerDeniesAPayer(_ login: PostgresPool) async throws {
        let buyer = user("denied-payer")
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        let first = payer(buyer, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: buyer)), delivers: true)
        guard let id = first.id else { return }
        await forge(login, "scheduler login", "state = rejected on a payer's delivered job", "UPDATE receiptq.jobs SET state = 'rejected' WHERE id = $1",
                    [id])
        payer(buyer, "reads the job after the forged state", await backend.status(id))
    }

    /// The API's login may insert `trusted_claim = true` whatever `--trusted-claim-tokens` says
    /// (none here is trusted but one token): with its password, a fresh purchase's transaction id
    /// is granted to any account, and the payer who comes later reads not-yours.
    func apiLoginVouchesForAnAttacker(_ login: PostgresPool) async throws {
        let victim = user("victim")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        let mallory = attacker(1)
        if let id = await forgeJob(login, "API login", "a trusted claim of a fresh purchase, queued directly",
                                   ["transaction_id", nil, purchase.transactionId, mallory, nil, true]) {
            attacked(mallory, "the directly queued trusted claim of a fresh purchase", await backend.final(await backend.status(id)),
                     allowed: ["resubmit"])
        }
        payer(victim, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: victim)), delivers: true)
    }
}
