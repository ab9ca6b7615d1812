import FakeAppStore
import Foundation
import Postgres

/// Role abuse: someone holding the scheduler's or the API's database login (a leaked password, a
/// compromised process) tries to make a purchase anyone's but its payer's. Each statement must be
/// refused by PostgreSQL, or be harmless: what it changes is not what a verdict is read from.
/// Harm is measured the way a backend would notice it — the API's verdicts of the jobs touched,
/// read afterwards and again at the end of the round — and through the ledger checks.
extension FraudPlay {
    /// What the round's earlier attacks left for the forger to work on.
    struct RoleTargets: Sendable {
        /// Attackers' jobs that read owned_by_another_user (their purchase_key names the owner's grant).
        var refusedJobs: [Int64]
        /// A payer's delivering job.
        var payerJob: Int64
        /// An attacker's job that is not finished (a "MAAA" retrying), if any.
        var unfinishedJob: Int64?
        /// A payer's order.
        var payerOrder: String?
        /// Every job of the round.
        var roundJobs: [Int64]
    }

    static let refusals = ["refused 42501", "refused 23514", "refused 23503"]

    /// As the scheduler's login.
    func schedulerAbuse(_ login: PostgresPool, _ targets: RoleTargets) async throws {
        let forger = "scheduler login", mallory = attacker(1)
        let grantKey = try await purchaseKey(of: targets.payerJob)
        if let replay = targets.refusedJobs.first {
            await forge(login, forger, "state = granted on a replay's job", "UPDATE receiptq.jobs SET state = 'granted' WHERE id = $1", [replay],
                        allowed: Self.refusals + ["ran"])
            attacked(mallory, "the replay's job after the forged state", await backend.status(replay))
        }
        if let unfinished = targets.unfinishedJob {
            await forge(login, forger, "state = granted on an unfinished job (no ledger row)",
                        "UPDATE receiptq.jobs SET state = 'granted', finished_at = now() WHERE id = $1", [unfinished])
        }
        await forge(login, forger, "a payer's job given to the attacker", "UPDATE receiptq.jobs SET user_id = $2 WHERE id = $1",
                    [targets.payerJob, mallory])
        await forge(login, forger, "a payer's grant given to the attacker", "UPDATE receiptq.grants SET user_id = $2 WHERE purchase_key = $1",
                    [grantKey, mallory])
        await commonForgeries(login, forger, mallory, targets)
        await forge(login, forger, "job.failed events for every job of the round",
                    "SELECT receiptq.append_failed_job_events($1::bigint[]) AS appended", [targets.roundJobs],
                    allowed: ["ran: 0 appended"], column: "appended")
        if targets.refusedJobs.count > 1 {
            let replay = targets.refusedJobs[1]
            let ran = await forge(login, forger, "a refused replay requeued for another try",
                                  "UPDATE receiptq.jobs SET state = 'queued', finished_at = NULL, run_at = now() WHERE id = $1", [replay],
                                  allowed: Self.refusals + ["ran"])
            if ran == "ran" { attacked(mallory, "the requeued replay, verified again", await backend.final(await backend.status(replay))) }
        }
        try await schedulerDeniesAPayer(login)
    }

    /// The scheduler's login may write `state` (to requeue and give up), but never a verdict: a
    /// payer's delivered job turned `rejected` would read `not_paid` and tell the app to finish the
    /// transaction and deliver nothing (`jobs_guard_state`: refused 42501).
    private func schedulerDeniesAPayer(_ login: PostgresPool) async throws {
        let buyer = user("denied-payer")
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        let first = payer(buyer, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: buyer)), delivers: true)
        guard let id = first.id else { return }
        for verdict in ["rejected", "owned_elsewhere"] {
            await forge(login, "scheduler login", "state = \(verdict) on a payer's delivered job",
                        "UPDATE receiptq.jobs SET state = $2 WHERE id = $1", [id, verdict])
        }
        payer(buyer, "reads the job after the forged states", await backend.status(id))
    }

    /// As the API's login. It may queue jobs (that is its work); a queued job proves nothing by itself.
    func apiAbuse(_ login: PostgresPool, _ targets: RoleTargets) async throws {
        let forger = "API login", mallory = attacker(1)
        let grantKey = try await purchaseKey(of: targets.payerJob)
        if let replay = targets.refusedJobs.first {
            await forge(login, forger, "state = granted on a replay's job", "UPDATE receiptq.jobs SET state = 'granted' WHERE id = $1", [replay])
        }
        await forge(login, forger, "a payer's job given to the attacker", "UPDATE receiptq.jobs SET user_id = $2 WHERE id = $1",
                    [targets.payerJob, mallory])
        await forge(login, forger, "a payer's grant given to the attacker", "UPDATE receiptq.grants SET user_id = $2 WHERE purchase_key = $1",
                    [grantKey, mallory])
        await forge(login, forger, "a job inserted already granted, on the payer's grant",
                    "INSERT INTO receiptq.jobs (kind, transaction_id, user_id, state, purchase_key, finished_at) VALUES ('transaction_id', $1, $2, 'granted', $3, now())",
                    ["forged-\(round)", mallory, grantKey])
        await forge(login, forger, "job.failed events appended", "SELECT receiptq.append_failed_job_events($1::bigint[])", [targets.roundJobs])
        if let order = targets.payerOrder {
            await forge(login, forger, "the payer's order given to the attacker", "UPDATE receiptq.orders SET user_id = $2 WHERE order_id = $1",
                        [order, mallory])
        }
        await commonForgeries(login, forger, mallory, targets)

        // Straight into the queue, past the API's signature check: a JWS from the attacker's CA for
        // a purchase nobody has submitted yet. The worker verifies it again; the victim is delivered after.
        let victim = user("payer")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        if let id = await forgeJob(login, forger, "a job with a JWS from the attacker's CA, queued directly", [
            "signed_transaction", try store.foreignSigned(purchase), purchase.transactionId, mallory, "Production", false,
        ]) {
            attacked(mallory, "the directly queued forged JWS", await backend.final(await backend.status(id)), allowed: ["not_paid", "pending"])
        }
        payer(victim, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: victim)), delivers: true)
        // A trusted claim queued directly for a purchase already granted to its payer.
        let granted = try await pool.query("SELECT transaction_id FROM receiptq.grants WHERE purchase_key = $1", [grantKey]).first
        if let transaction = try granted?.decode("transaction_id", as: String.self),
           let id = await forgeJob(login, forger, "a trusted claim queued directly for a payer's purchase",
                                   ["transaction_id", nil, transaction, mallory, nil, true]) {
            attacked(mallory, "the directly queued trusted claim", await backend.final(await backend.status(id)))
        }
        try await apiLoginVouchesForAnAttacker(login)
    }

    /// The API's login may queue a claim marked trusted, but the database keeps the mark only with
    /// the token of a backend it trusts (`jobs_check_trusted_claim`): with the password alone, or
    /// with the API's other token, a fresh purchase's transaction id is a plain claim, and its payer
    /// who comes later is delivered.
    private func apiLoginVouchesForAnAttacker(_ login: PostgresPool) async throws {
        let victim = user("victim")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        let mallory = attacker(1)
        if let id = await forgeJob(login, "API login", "a trusted claim of a fresh purchase, queued directly",
                                   ["transaction_id", nil, purchase.transactionId, mallory, nil, true]) {
            attacked(mallory, "the directly queued trusted claim of a fresh purchase", await backend.final(await backend.status(id)),
                     allowed: ["resubmit"])
        }
        do {
            let row = try await login.query("""
                INSERT INTO receiptq.jobs (kind, transaction_id, user_id, trusted_claim, claim_proof)
                VALUES ('transaction_id', $1, $2, true, $3) RETURNING id, trusted_claim
                """, [purchase.transactionId, attacker(2), backend.token]).first
            let kept = try row?.decode("trusted_claim", as: Bool.self) ?? false
            let job = try row?.decode("id", as: Int64.self) ?? 0
            let stored = try await pool.query("SELECT count(*) AS stored FROM receiptq.jobs WHERE id = $1 AND claim_proof IS NOT NULL",
                                              [job])[0].decode("stored", as: Int.self) > 0
            check("a trusted claim with an untrusted backend's token is queued as a plain claim, the token not stored",
                  !kept && !stored, "trusted_claim \(kept), claim_proof stored \(stored)")
            if job > 0 {
                attacked(attacker(2), "the directly queued claim with an untrusted token", await backend.final(await backend.status(job)),
                         allowed: ["resubmit"])
            }
        } catch {
            check("a trusted claim with an untrusted backend's token is queued as a plain claim", false, "refused: \(error)")
        }
        payer(victim, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: victim)), delivers: true)
    }

    private func purchaseKey(of job: Int64) async throws -> String {
        let row = try await pool.query("SELECT purchase_key FROM receiptq.jobs WHERE id = $1", [job]).first
        guard let key = try row?.decodeIfPresent("purchase_key", as: String.self) else { throw FraudError("the payer's job \(job) has no grant") }
        return key
    }
}
